import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { useSession } from '../features/auth/session';
import { chooseLanguage } from '../i18n/i18n';
import { defaultLanguage, isSupportedLanguage, languages, type SupportedLanguage } from '../i18n/languages';
import { useApi } from '../lib/api-context';

/** Tells the service worker (push texts) the new language, if one is registered. */
async function tellServiceWorker(language: SupportedLanguage): Promise<void> {
  if (!('serviceWorker' in navigator)) return;
  const registration = await navigator.serviceWorker.getRegistration();
  registration?.active?.postMessage({ type: 'LANG_UPDATE', language });
}

export function LanguageSelector() {
  const { t, i18n } = useTranslation();
  const selectId = useId();
  const api = useApi();
  const { user } = useSession();

  const change = async (language: SupportedLanguage) => {
    await chooseLanguage(i18n, language);
    if (!user) return;
    // The server writes e-mails in the user's language; a failure here leaves the interface changed anyway.
    await api.request('POST', '/user/language', { body: { language } }).catch(() => undefined);
    await tellServiceWorker(language).catch(() => undefined);
  };

  return (
    <div className="language-selector">
      <label htmlFor={selectId} className="visually-hidden">
        {t('nav.language')}
      </label>
      <select
        id={selectId}
        value={i18n.resolvedLanguage ?? defaultLanguage}
        onChange={(event) => {
          const language = event.target.value;
          if (isSupportedLanguage(language)) void change(language);
        }}
      >
        {languages.map(({ code, word }) => (
          <option key={code} value={code} lang={code} disabled={!isSupportedLanguage(code)}>
            {word}
          </option>
        ))}
      </select>
    </div>
  );
}
