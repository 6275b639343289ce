import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { chooseLanguage } from '../i18n/i18n';
import { defaultLanguage, isSupportedLanguage, languages } from '../i18n/languages';

export function LanguageSelector() {
  const { t, i18n } = useTranslation();
  const selectId = useId();

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
          if (isSupportedLanguage(language)) void chooseLanguage(i18n, language);
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
