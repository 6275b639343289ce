export const supportedLanguages = ['en', 'nl', 'es'] as const;
export type SupportedLanguage = (typeof supportedLanguages)[number];

export const defaultLanguage: SupportedLanguage = 'en';

export interface Language {
  code: string;
  /** The language's name in that language, as the selector shows it. */
  word: string;
}

// Italian is listed but has no texts yet, so it cannot be chosen.
export const languages: readonly Language[] = [
  { code: 'en', word: 'English' },
  { code: 'nl', word: 'Nederlands' },
  { code: 'es', word: 'Español' },
  { code: 'it', word: 'Italiano' },
];

export function isSupportedLanguage(code: string): code is SupportedLanguage {
  return (supportedLanguages as readonly string[]).includes(code);
}
