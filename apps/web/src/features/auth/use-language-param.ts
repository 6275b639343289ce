import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

import { chooseLanguage } from '../../i18n/i18n';
import { isSupportedLanguage } from '../../i18n/languages';

/** A login page's language parameter (`/login/nl`, `?lang=es`) sets the display language. */
export function useLanguageParam(language: string | null | undefined) {
  const { i18n } = useTranslation();
  useEffect(() => {
    if (language && isSupportedLanguage(language) && i18n.resolvedLanguage !== language) void chooseLanguage(i18n, language);
  }, [language, i18n]);
}
