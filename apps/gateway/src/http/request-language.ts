import type { FastifyRequest } from 'fastify';
import { USER_LANGUAGES, type UserLanguage } from '@homing/contracts';

/**
 * The interface language a request speaks (ARCHITECTURE §5): `X-Language` if it names one we offer, else the first
 * offered language in `Accept-Language`, else English.
 */
export function requestLanguage(request: Pick<FastifyRequest, 'headers'>): UserLanguage {
  return namedLanguage(request) ?? 'en';
}

/** The language a request names (as `requestLanguage`), or undefined when it names none we offer. */
export function namedLanguage(request: Pick<FastifyRequest, 'headers'>): UserLanguage | undefined {
  const offered = (tag: string): UserLanguage | undefined => USER_LANGUAGES.find((language) => tag.trim().toLowerCase().split('-')[0] === language);
  const explicit = request.headers['x-language'];
  if (typeof explicit === 'string' && offered(explicit)) return offered(explicit) as UserLanguage;
  const accepted = request.headers['accept-language'];
  if (typeof accepted === 'string') {
    const ranked = accepted
      .split(',')
      .map((part) => {
        const [tag, ...parameters] = part.split(';');
        const quality = Number(parameters.find((parameter) => parameter.trim().startsWith('q='))?.trim().slice(2) ?? '1');
        return { tag, quality: Number.isFinite(quality) ? quality : 0 };
      })
      .filter(({ quality }) => quality > 0)
      .sort((a, b) => b.quality - a.quality);
    for (const { tag } of ranked) {
      const language = offered(tag);
      if (language) return language;
    }
  }
  return undefined;
}
