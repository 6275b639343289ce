import en from './locales/en.json';
import es from './locales/es.json';
import nl from './locales/nl.json';
import type { SupportedLanguage } from './languages';
import type { Texts } from './resources';

// Every language's texts at once, for the pages rendered ahead of the browser (the gateway's finder page, found.html),
// which answer in any language without fetching.
export const allResources = {
  en: { translation: en },
  nl: { translation: nl },
  es: { translation: es },
} satisfies Record<SupportedLanguage, { translation: Texts }>;
