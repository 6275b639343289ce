import i18next, { type i18n } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';

import { defaultLanguage, supportedLanguages, type SupportedLanguage } from './languages';
import { resources } from './resources';

// WARNING: persisted in users' browsers; renaming it forgets everyone's chosen language.
export const languageStorageKey = 'homing.lang';

/**
 * A ready i18next instance: the stored preferred language if it is one we offer, otherwise the
 * browser's languages, otherwise English. Texts are bundled, so it is usable as soon as it returns.
 */
export function createI18n(): i18n {
  const instance = i18next.createInstance();
  instance.on('languageChanged', () => {
    document.documentElement.lang = instance.resolvedLanguage ?? defaultLanguage;
  });
  void instance
    .use(LanguageDetector)
    .use(initReactI18next)
    .init({
      resources,
      supportedLngs: supportedLanguages,
      fallbackLng: defaultLanguage,
      load: 'languageOnly',
      initAsync: false,
      // React already escapes what it renders.
      interpolation: { escapeValue: false },
      detection: {
        order: ['localStorage', 'navigator'],
        lookupLocalStorage: languageStorageKey,
        // Only an explicit choice is stored (see chooseLanguage), so a visitor who never chose
        // keeps following their browser's languages.
        caches: [],
      },
    });
  return instance;
}

/** Switches the interface language and remembers it as the preferred language. */
export async function chooseLanguage(instance: i18n, language: SupportedLanguage): Promise<void> {
  try {
    localStorage.setItem(languageStorageKey, language);
  } catch {
    // Storage can be unavailable (private browsing, quota); the choice still applies to this visit.
  }
  await instance.changeLanguage(language);
}
