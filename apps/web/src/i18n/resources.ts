import en from './locales/en.json';
import es from './locales/es.json';
import nl from './locales/nl.json';
import type { SupportedLanguage } from './languages';

// English is the source of truth for keys; the other files must have the same shape.
export const resources = {
  en: { translation: en },
  nl: { translation: nl },
  es: { translation: es },
} satisfies Record<SupportedLanguage, { translation: typeof en }>;
