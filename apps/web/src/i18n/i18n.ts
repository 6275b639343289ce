import i18next, { type i18n } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';

import { defaultLanguage, isSupportedLanguage, supportedLanguages, type SupportedLanguage } from './languages';
import { resources } from './resources';

// WARNING: persisted in users' browsers; renaming it forgets everyone's chosen language.
export const languageStorageKey = 'lang';
// Where earlier versions kept the choice; moved to languageStorageKey on the first visit since.
export const formerLanguageStorageKey = 'homing.lang';

export interface I18nOptions {
  /** The browser's languages as the website's `/lang` answers them (Accept-Language), best first. */
  browserLanguages?: () => Promise<readonly string[]>;
  /**
   * The language the page arrived in (`<html lang>`): the gateway renders the finder page in the visitor's language,
   * and the app starts in it rather than in English, so taking the page over changes no word.
   */
  pageLanguage?: string;
}

/** The first of the browser's languages that we offer (`nl-BE` counts as `nl`). */
export function pickLanguage(candidates: readonly string[]): SupportedLanguage | undefined {
  for (const candidate of candidates) {
    const base = candidate.trim().toLowerCase().split(/[-_]/)[0];
    if (isSupportedLanguage(base)) return base;
  }
  return undefined;
}

/** Moves a choice stored by an earlier version to where the app now looks, so the visitor keeps it. */
function moveFormerlyStoredLanguage(): void {
  try {
    const former = localStorage.getItem(formerLanguageStorageKey);
    if (former === null) return;
    if (localStorage.getItem(languageStorageKey) === null) localStorage.setItem(languageStorageKey, former);
    localStorage.removeItem(formerLanguageStorageKey);
  } catch {
    // Storage unavailable: there is no choice to keep either.
  }
}

export function storedLanguage(): SupportedLanguage | undefined {
  try {
    const stored = localStorage.getItem(languageStorageKey);
    return stored && isSupportedLanguage(stored) ? stored : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A ready i18next instance (texts are bundled, so it is usable as soon as it returns) in the stored preferred
 * language if it is one we offer; otherwise English until `/lang` names one of the browser's languages we offer.
 */
export function createI18n(options: I18nOptions = {}): i18n {
  moveFormerlyStoredLanguage();
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
        order: ['localStorage'],
        lookupLocalStorage: languageStorageKey,
        // Only an explicit choice is stored (see chooseLanguage), so a visitor who never chose
        // keeps following their browser's languages.
        caches: [],
      },
    });
  // The texts are bundled: the switch is done before the first render.
  if (!storedLanguage() && options.pageLanguage && isSupportedLanguage(options.pageLanguage)) void instance.changeLanguage(options.pageLanguage);
  if (!storedLanguage() && options.browserLanguages) {
    options
      .browserLanguages()
      .then((languages) => {
        const language = Array.isArray(languages) ? pickLanguage(languages) : undefined;
        // The visitor may have chosen meanwhile; their choice wins.
        if (language && !storedLanguage()) void instance.changeLanguage(language);
      })
      .catch(() => {
        // No answer from /lang: English stays.
      });
  }
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

/**
 * A language picked in a prerendered page's language list (found.html, the gateway's finder page) before the app took
 * the page over: that list had no handler yet, so the choice is applied here rather than lost with the page.
 */
export async function keepPrerenderedLanguage(instance: i18n, root: ParentNode): Promise<void> {
  const select = root.querySelector<HTMLSelectElement>('select#language');
  const picked = select ? [...select.options].find((option) => option.selected && !option.defaultSelected)?.value : undefined;
  if (picked && isSupportedLanguage(picked)) await chooseLanguage(instance, picked);
}

/**
 * Until the app has taken a prerendered page over, a language picked in that page's list applies at once: the list
 * has no handler of its own, and a pick between `keepPrerenderedLanguage` and the app's first render would be lost.
 * (The app's own list has an id of React's making, not `language`.)
 */
export function followPrerenderedLanguage(instance: i18n, root: HTMLElement): void {
  root.addEventListener('change', (event) => {
    const target = event.target;
    if (target instanceof HTMLSelectElement && target.id === 'language' && isSupportedLanguage(target.value)) void chooseLanguage(instance, target.value);
  });
}
