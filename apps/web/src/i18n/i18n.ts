import i18next, { type BackendModule, type i18n } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';

import { defaultLanguage, isSupportedLanguage, supportedLanguages, type SupportedLanguage } from './languages';
import { loadTexts, resources } from './resources';

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

/** i18next's way to the texts not bundled: a language's file, fetched the first time the language is shown. */
const lazyTexts: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, _namespace, callback) {
    const load = Object.hasOwn(loadTexts, language) ? loadTexts[language as keyof typeof loadTexts] : undefined;
    // English is bundled (i18next does not ask for it); a language we do not offer has no texts of its own.
    if (!load) return callback(null, {});
    // A failure is retried by i18next, then English shows.
    load().then(
      (texts) => callback(null, texts.default),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  },
};

// What each instance is switching to at its start: the app renders once those texts are in (languageReady).
const startingLanguage = new WeakMap<i18n, Promise<unknown>>();

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
 * An i18next instance in the stored preferred language if it is one we offer, else the page's language (a page
 * rendered ahead in the visitor's language), else English until `/lang` names one of the browser's languages we
 * offer. English is usable as soon as it returns; another language once its texts have arrived (`languageReady`).
 */
export function createI18n(options: I18nOptions = {}): i18n {
  moveFormerlyStoredLanguage();
  // The page's language is where i18next starts, not a switch after English: until its texts arrive, no language is
  // announced, and <html lang> keeps the page's own.
  const pageLanguage = !storedLanguage() && options.pageLanguage && isSupportedLanguage(options.pageLanguage) ? options.pageLanguage : undefined;
  const instance = i18next.createInstance();
  instance.on('languageChanged', () => {
    document.documentElement.lang = instance.resolvedLanguage ?? defaultLanguage;
  });
  const initialized = instance
    .use(lazyTexts)
    .use(LanguageDetector)
    .use(initReactI18next)
    .init({
      // A copy: i18next adds each fetched language to the object it is given, and that one is shared by every instance.
      resources: { ...resources },
      lng: pageLanguage,
      // English comes with the app; the backend fetches the rest.
      partialBundledLanguages: true,
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
  startingLanguage.set(instance, initialized);
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

/**
 * Resolves once the texts of the language the instance started in are in (at once for English), or their fetch has
 * failed (English shows): the app renders after it, so a Dutch page does not flash English first.
 */
export async function languageReady(instance: i18n): Promise<void> {
  await startingLanguage.get(instance)?.catch(() => undefined);
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
