import { namedLanguage, requestLanguage } from './request-language';

describe('requestLanguage', () => {
  const of = (headers: Record<string, string>) => requestLanguage({ headers });

  it('takes X-Language when it names a language we offer', () => {
    expect(of({ 'x-language': 'nl', 'accept-language': 'es' })).toBe('nl');
    expect(of({ 'x-language': 'it', 'accept-language': 'es' })).toBe('es');
  });

  it('takes the best offered language of Accept-Language, by quality', () => {
    expect(of({ 'accept-language': 'de-DE, es;q=0.5, nl-BE;q=0.8' })).toBe('nl');
    expect(of({ 'accept-language': 'fr, it;q=0.9' })).toBe('en');
  });

  it('falls back to English', () => {
    expect(of({})).toBe('en');
  });
});

describe('namedLanguage', () => {
  it('names a language only when the request names one we offer, so a later call without one changes nothing', () => {
    expect(namedLanguage({ headers: { 'x-language': 'es' } })).toBe('es');
    expect(namedLanguage({ headers: { 'accept-language': 'es-ES,es;q=0.9' } })).toBe('es');
    expect(namedLanguage({ headers: { 'accept-language': 'fr' } })).toBeUndefined();
    expect(namedLanguage({ headers: {} })).toBeUndefined();
  });
});
