import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedRequest } from '../auth/authenticated-user';
import { isMiss, type UnknownCodeLimiter } from '../items/unknown-code-limit';
import { INTERNAL_ERROR_ANSWER, sendHttpError, toHttpError } from './http-error';

/**
 * A route's handler as Fastify calls it: no guard, pipe, interceptor or exception filter of Nest around it. Fastify
 * sends what it returns, or what its promise resolves to.
 */
export type PlainHandler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * The hottest routes (the finder's scan and the QR image: B1, B2, B6) are answered by plain Fastify handlers, outside
 * Nest's per-request pipeline. Their Nest controller methods stay: with `@ApiRoute` they are the routes' contract (the
 * OpenAPI document, the route table), so the security and contract tests walk them as before. When Nest registers
 * such a route, this hook puts the plain handler in place of Nest's; the route keeps its path, its Fastify hooks
 * (security headers, metrics, request context, the unknown-code limit) and its HEAD twin. Start-up fails if a route
 * named here is never registered: a renamed route must not fall back to Nest's slower pipeline unnoticed.
 */
export function servePlainHandlers(fastify: FastifyInstance, handlers: Record<`GET /${string}`, PlainHandler>): void {
  const waiting = new Set(Object.keys(handlers));
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // Fastify registers a GET route's HEAD twin as a route of its own, from the options as they were given.
      const key = `${method === 'HEAD' ? 'GET' : method} ${route.url}` as keyof typeof handlers;
      const handler = handlers[key];
      if (!handler) continue;
      route.handler = handler;
      waiting.delete(key);
    }
  });
  fastify.addHook('onReady', async () => {
    if (waiting.size > 0) throw new Error(`plain handlers for routes Nest never registered: ${[...waiting].join(', ')}`);
  });
}

const logger = new Logger('PlainHandlers');

/**
 * What the exception filter does for Nest's routes: the contract's error answer, and an unknown code on a public
 * route counted as a miss (before it is answered) against the client address's unknown-code limit. Bugs are logged
 * with the route's pattern (never the URL: it holds codes) and answered 500 without details.
 */
export async function answerError(request: FastifyRequest, reply: FastifyReply, error: unknown, unknownCodes: UnknownCodeLimiter): Promise<FastifyReply> {
  const answer = toHttpError(error);
  if (!answer) {
    logger.error({ err: error, route: `${request.method} ${request.routeOptions.url ?? '(no route)'}` }, 'unhandled error');
    sendHttpError(reply, INTERNAL_ERROR_ANSWER);
    return reply;
  }
  if (isMiss(request as AuthenticatedRequest, answer)) await unknownCodes.recordMiss(request.ip);
  sendHttpError(reply, answer);
  return reply;
}
