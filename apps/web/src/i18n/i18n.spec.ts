import { waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { chooseLanguage, createI18n, followPrerenderedLanguage, keepPrerenderedLanguage, languageReady, pickLanguage } from './i18n';
import en from './locales/en.json';
import es from './locales/es.json';
import it_ from './locales/it.json';
import nl from './locales/nl.json';

type Texts = { [key: string]: string | Texts };

// The app's own code, tests left out (they name keys to check them, not to show them).
const sources = import.meta.glob<string>(['../**/*.{ts,tsx}', '!../**/*.spec.{ts,tsx}', '!../testing/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

function keysOf(texts: Texts, prefix = ''): string[] {
  return Object.entries(texts).flatMap(([key, value]) => (typeof value === 'string' ? [`${prefix}${key}`] : keysOf(value, `${prefix}${key}.`)));
}

function textAt(texts: Texts, key: string): string | undefined {
  const value = key.split('.').reduce<string | Texts | undefined>((node, part) => (typeof node === 'object' ? node[part] : undefined), texts);
  return typeof value === 'string' ? value : undefined;
}

// i18next picks a counted text's form (`key_one`, `key_many`, …) by the language's Intl.PluralRules: each language has
// the forms of its own rules (Spanish a `many`, for a million), not English's.
const pluralSuffix = /_(zero|one|two|few|many|other)$/;
const pluralForms = (language: string) => new Intl.PluralRules(language).resolvedOptions().pluralCategories;

/** The keys a language must have: English's, with each counted text in the plural forms of the language's rules. */
function keysFor(language: string, english: string[]): string[] {
  const counted = new Set(english.filter((key) => pluralSuffix.test(key)).map((key) => key.replace(pluralSuffix, '')));
  const plain = english.filter((key) => !pluralSuffix.test(key));
  return [...plain, ...[...counted].flatMap((key) => pluralForms(language).map((form) => `${key}_${form}`))];
}

/** The English text a language's key translates: the same form, or English's `other` for a form English lacks. */
function englishOf(key: string): string | undefined {
  return textAt(en, key) ?? textAt(en, key.replace(pluralSuffix, '_other'));
}

describe('texts', () => {
  const english = keysOf(en);

  it.each([
    ['nl', nl],
    ['es', es],
  ])('has every English text in %s, and nothing else', (language, texts) => {
    const expected = keysFor(language, english);
    const missing = expected.filter((key) => !textAt(texts, key)?.trim());
    expect(missing).toEqual([]);
    expect(keysOf(texts).filter((key) => !expected.includes(key))).toEqual([]);
  });

  it.each([
    ['en', en],
    ['nl', nl],
    ['es', es],
  ])('has, in %s, every plural form its rules pick for a text with a count', (language, texts) => {
    // A text with {{count}} is chosen by the count: a plain one would read "1 unread messages", and a form missing
    // from a language (Spanish `many`: 1000000) falls back to English's.
    const counted = [...new Set(english.filter((key) => textAt(en, key)?.includes('{{count}}')).map((key) => key.replace(pluralSuffix, '')))];
    expect(counted).toContain('found.unread');
    const missing = counted.flatMap((key) => pluralForms(language).map((form) => `${key}_${form}`)).filter((key) => !textAt(texts, key)?.trim());
    expect(missing).toEqual([]);
  });

  it.each([
    ['en', 1, '1 unread message'],
    ['en', 1_000_000, '1000000 unread messages'],
    ['nl', 1, '1 ongelezen bericht'],
    ['nl', 2, '2 ongelezen berichten'],
    ['es', 1, '1 mensaje sin leer'],
    ['es', 2, '2 mensajes sin leer'],
    ['es', 1_000_000, '1000000 mensajes sin leer'],
  ] as const)('words a count in %s in its plural form: %i', async (language, count, text) => {
    const i18n = createI18n();
    await chooseLanguage(i18n, language);
    expect(i18n.t('found.unread', { count })).toBe(text);
  });

  it.each([
    ['nl', nl],
    ['es', es],
  ])('keeps the same placeholders in %s', (language, texts) => {
    const placeholders = (text = '') => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((match) => match[1]).sort();
    for (const key of keysFor(language, english)) expect([key, placeholders(textAt(texts, key))]).toEqual([key, placeholders(englishOf(key))]);
  });

  it.each([
    ['nl', nl],
    ['es', es],
  ])('keeps the same inline tags (links, code) in %s', (language, texts) => {
    const tags = (text = '') => [...text.matchAll(/<(\/?\w+)>/g)].map((match) => match[1]).sort();
    for (const key of keysFor(language, english)) expect([key, tags(textAt(texts, key))]).toEqual([key, tags(englishOf(key))]);
  });

  it('calls a tag by one Dutch word everywhere: "label", never "tag"', () => {
    const withTag = keysOf(nl).filter((key) => /\btags?\b/i.test((textAt(nl, key) ?? '').replace(/\{\{[^}]*\}\}/g, '')));
    expect(withTag).toEqual([]);
  });

  it('has an English text for every key the code names', () => {
    // Every quoted 'namespace.key' in the app's code (t('…'), schema messages, the error catalogue); the typed t()
    // catches most of these at compile time, this also catches keys held in plain strings.
    const namespaces = Object.keys(en).join('|');
    const keyLiteral = new RegExp(`['"\`]((?:${namespaces})\\.[A-Za-z0-9_.]+)['"\`]`, 'g');
    const used = new Set(Object.values(sources).flatMap((source) => [...source.matchAll(keyLiteral)].map((match) => match[1])));
    expect(used.size).toBeGreaterThan(100);
    expect(used).toContain('validation.required');
    // A counted text is named without its plural form: t('found.unread', { count }).
    expect([...used].filter((key) => !(textAt(en, key) ?? textAt(en, `${key}_other`))?.trim())).toEqual([]);
  });

  it('has no texts in Italian yet (listed, not selectable)', () => {
    expect(it_).toEqual({});
  });
});

describe('choosing the display language', () => {
  it('takes a browser language we offer from /lang', () => {
    expect(pickLanguage(['fr-FR', 'nl-BE', 'en'])).toBe('nl');
    expect(pickLanguage(['it', 'fr'])).toBeUndefined();
  });

  it('uses the stored choice first, without asking /lang', async () => {
    localStorage.setItem('lang', 'es');
    const browserLanguages = vi.fn(async () => ['nl']);
    const i18n = createI18n({ browserLanguages });
    await languageReady(i18n);
    expect(i18n.resolvedLanguage).toBe('es');
    expect(i18n.t('about.title')).toBe(es.about.title);
    expect(browserLanguages).not.toHaveBeenCalled();
  });

  it('carries English only, and fetches another language the first time it is shown', async () => {
    const i18n = createI18n();
    await languageReady(i18n);
    expect(i18n.t('about.title')).toBe(en.about.title);
    expect(i18n.hasResourceBundle('nl', 'translation')).toBe(false);
    expect(i18n.hasResourceBundle('es', 'translation')).toBe(false);
    await chooseLanguage(i18n, 'nl');
    expect(i18n.t('about.title')).toBe(nl.about.title);
    expect(i18n.hasResourceBundle('es', 'translation')).toBe(false);
  });

  it("is ready once the page's language has its texts, so the app's first render is in it", async () => {
    document.documentElement.lang = 'nl';
    const i18n = createI18n({ pageLanguage: 'nl' });
    // Meanwhile the page keeps saying it is Dutch (it is: the server rendered it so).
    expect(document.documentElement.lang).toBe('nl');
    await languageReady(i18n);
    expect(document.documentElement.lang).toBe('nl');
    expect(i18n.resolvedLanguage).toBe('nl');
    expect(i18n.t('about.title')).toBe(nl.about.title);
  });

  it('stores an explicit choice under the property lang', async () => {
    const i18n = createI18n();
    await chooseLanguage(i18n, 'nl');
    expect(localStorage.getItem('lang')).toBe('nl');
    expect(i18n.resolvedLanguage).toBe('nl');
  });

  it('keeps a choice stored by an earlier version under homing.lang, moving it to lang', async () => {
    localStorage.setItem('homing.lang', 'es');
    const i18n = createI18n({ browserLanguages: async () => ['nl'] });
    await languageReady(i18n);
    expect(i18n.resolvedLanguage).toBe('es');
    expect(localStorage.getItem('lang')).toBe('es');
    expect(localStorage.getItem('homing.lang')).toBeNull();
  });

  it('prefers a choice under lang to one left under homing.lang', async () => {
    localStorage.setItem('lang', 'nl');
    localStorage.setItem('homing.lang', 'es');
    const i18n = createI18n();
    await languageReady(i18n);
    expect(i18n.resolvedLanguage).toBe('nl');
  });

  it('ignores a stored language we do not offer and follows /lang', async () => {
    localStorage.setItem('lang', 'it');
    const i18n = createI18n({ browserLanguages: async () => ['de', 'nl-NL'] });
    await waitFor(() => expect(i18n.resolvedLanguage).toBe('nl'));
    expect(document.documentElement.lang).toBe('nl');
  });

  it('starts in the language the page arrived in (the server-rendered finder page), unless the visitor chose one', async () => {
    const ready = async (i18n: ReturnType<typeof createI18n>) => (await languageReady(i18n), i18n.resolvedLanguage);
    expect(await ready(createI18n({ pageLanguage: 'nl', browserLanguages: async () => ['nl'] }))).toBe('nl');
    expect(await ready(createI18n({ pageLanguage: 'it' }))).toBe('en');
    localStorage.setItem('lang', 'es');
    expect(await ready(createI18n({ pageLanguage: 'nl' }))).toBe('es');
  });

  it('stays in English when /lang fails or names nothing we offer', async () => {
    const failing = createI18n({ browserLanguages: () => Promise.reject(new Error('offline')) });
    const foreign = createI18n({ browserLanguages: async () => ['de', 'fr'] });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(failing.resolvedLanguage).toBe('en');
    expect(foreign.resolvedLanguage).toBe('en');
  });
  it('applies a language picked in the prerendered page before the app took it over, and nothing when none was picked', async () => {
    const page = document.createElement('div');
    page.innerHTML = '<select id="language"><option value="en" selected>English</option><option value="nl">Nederlands</option></select>';
    const untouched = createI18n({ pageLanguage: 'en' });
    await keepPrerenderedLanguage(untouched, page);
    expect(untouched.resolvedLanguage).toBe('en');
    expect(localStorage.getItem('lang')).toBeNull();

    page.querySelector('select')!.value = 'nl';
    const picked = createI18n({ pageLanguage: 'en' });
    await keepPrerenderedLanguage(picked, page);
    expect(picked.resolvedLanguage).toBe('nl');
    expect(localStorage.getItem('lang')).toBe('nl');
  });
  it('applies a language picked in the prerendered page at once, while the app is still on its way', async () => {
    const page = document.createElement('div');
    page.innerHTML = '<select id="language"><option value="en" selected>English</option><option value="es">Español</option></select>';
    const i18n = createI18n({ pageLanguage: 'en' });
    followPrerenderedLanguage(i18n, page);
    const select = page.querySelector('select')!;
    select.value = 'es';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await waitFor(() => expect(i18n.resolvedLanguage).toBe('es'));
    expect(localStorage.getItem('lang')).toBe('es');
  });
});
