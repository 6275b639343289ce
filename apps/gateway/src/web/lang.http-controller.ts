import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

// Enough for any real browser; the rest of a longer header is ignored.
const MAX_LANGUAGES = 20;

/** The language tags of an Accept-Language header, best first (`nl-NL,nl;q=0.9,en;q=0.8` → `["nl-NL","nl","en"]`). */
export function browserLanguages(acceptLanguage: string | undefined): string[] {
  if (!acceptLanguage) return [];
  return acceptLanguage
    .split(',')
    .slice(0, MAX_LANGUAGES)
    .map((part, index) => {
      const [tag = '', ...parameters] = part.split(';').map((piece) => piece.trim());
      const quality = Number(parameters.find((parameter) => parameter.startsWith('q='))?.slice(2) ?? '1');
      return { tag, quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter(({ tag, quality }) => quality > 0 && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag))
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
    .map(({ tag }) => tag);
}

/**
 * `GET /lang`: the website path (spec §2) that tells the web app the browser's languages, so a visitor who never
 * chose one sees their own. A plain Fastify route, not a Nest one: it is no part of the API (not in the OpenAPI
 * document, whose operations the security tests walk), reads nothing but a header, and so passes no guard, no rate
 * limit (a Redis round trip) and no pipe on every first page load. The `/api/v1` prefix is no reason: `/qr` is a Nest
 * route excluded from it (http-contract.ts).
 */
@Injectable()
export class LangHttpController implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.get('/lang', async (request: FastifyRequest, reply) => {
      // Depends on the request's header: caches must keep one answer per Accept-Language, browsers none at all.
      void reply.header('Cache-Control', 'private, no-cache').header('Vary', 'Accept-Language');
      return browserLanguages(request.headers['accept-language']);
    });
  }
}
