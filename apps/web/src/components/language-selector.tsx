import { useId, type SelectHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';

import { useSession } from '../lib/session';
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
  const { i18n } = useTranslation();
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
    <LanguageSelect
      id={selectId}
      value={i18n.resolvedLanguage ?? defaultLanguage}
      onChange={(event) => {
        const language = event.target.value;
        if (isSupportedLanguage(language)) void change(language);
      }}
    />
  );
}

/** The language list with its label; also in the prerendered finder page (src/prerender/finder-shell.tsx). */
export function LanguageSelect({ id, ...select }: { id: string } & Pick<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'defaultValue' | 'onChange'>) {
  const { t } = useTranslation();
  return (
    <div className="language-selector">
      <label htmlFor={id} className="visually-hidden">
        {t('nav.language')}
      </label>
      <select id={id} {...select}>
        {languages.map(({ code, word }) => (
          <option key={code} value={code} lang={code} disabled={!isSupportedLanguage(code)}>
            {word}
          </option>
        ))}
      </select>
    </div>
  );
}
