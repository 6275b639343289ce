import en from './locales/en.json';
import type { SupportedLanguage } from './languages';

// English is the source of truth for keys, and the fallback: it is bundled with the app. The other languages' texts
// arrive when one is shown (loadTexts), so a page carries the texts of its own language only, not of all three.
export const resources = { en: { translation: en } };

export type Texts = typeof en;

/** Fetches a language's texts; the type makes every locale file keep English's shape. */
export const loadTexts: Record<Exclude<SupportedLanguage, 'en'>, () => Promise<{ default: Texts }>> = {
  nl: () => import('./locales/nl.json'),
  es: () => import('./locales/es.json'),
};
