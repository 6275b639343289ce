import { RequestMethod } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { HttpExceptionFilter } from './http-exception.filter';
import { registerSecurityHeaders } from './security-headers';
import type { WebAppFallback } from '../web/web-app';
import { limitCodeRoutes, UnknownCodeLimiter } from '../items/unknown-code-limit';
import { ScanPlainRoute } from '../items/scan.plain-route';
import { QrPlainRoute } from '../qr/qr.plain-route';
import { servePlainHandlers } from './plain-handlers';

export const API_PREFIX = 'api/v1';

// ARCHITECTURE §5: JSON bodies up to 64 KB; larger ones are refused before they are read in full.
export const BODY_LIMIT_BYTES = 64 * 1024;

// Path parameters up to this length reach the routes; longer ones are refused as malformed (400).
export const MAX_PARAM_LENGTH = 1024;

/**
 * The HTTP contract in one place: the `/api/v1` prefix, security headers, JSON only, and every error, whether
 * Fastify raises it before a route runs or a route throws it, as `{response_code, message, validation?}`.
 */
export function applyHttpContract(app: NestFastifyApplication, webApp?: WebAppFallback): void {
  const fastify = app.getHttpAdapter().getInstance();

  // What the auth guard and the plain routes set on a request, declared so that every request has them from its
  // construction: a property added to each request later changes its shape, and the hot routes pay for that (B6).
  fastify.decorateRequest('publicRoute', false);
  fastify.decorateRequest('user', null);
  registerSecurityHeaders(fastify, `/${API_PREFIX}/`);
  // Guessing codes is limited on every route that takes one, whichever route the guesser picks.
  const unknownCodes = app.get(UnknownCodeLimiter);
  limitCodeRoutes(fastify, unknownCodes);
  // The hottest routes run outside Nest's per-request pipeline (B1, B2, B6); their contract stays Nest's.
  servePlainHandlers(fastify, {
    [`GET /${API_PREFIX}/items/:code`]: app.get(ScanPlainRoute).handle,
    'GET /qr/:code': app.get(QrPlainRoute).handle,
  });

  // JSON only: a text/plain body (what a cross-site form can send without a preflight) is refused with 415.
  fastify.removeContentTypeParser(['text/plain']);

  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
      { path: 'metrics', method: RequestMethod.GET },
      { path: 'qr/:code', method: RequestMethod.GET },
    ],
  });
  // Nest routes Fastify's own errors (body too large, wrong content type, broken JSON) to the same filter.
  app.useGlobalFilters(new HttpExceptionFilter(webApp, unknownCodes));
}
