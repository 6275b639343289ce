import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiSecurity, type ApiHeaderOptions, type ApiQueryOptions, type SchemaObject } from '@nestjs/swagger';
import { SkipThrottle, Throttle } from '@nestjs/throttler';
import type { z } from 'zod';
import { Public } from '@homing/platform';
import { FINDER_TOKEN_API_HEADER } from '../conversations/finder-token';
import { IDEMPOTENCY_KEY_API_HEADER } from './idempotency-key';
import { errorResponses, jsonSchemaOf } from './openapi';
import { RATE_LIMITS } from './rate-limits';

type ErrorStatus = keyof typeof errorResponses;

export interface ApiRouteOptions {
  summary: string;
  description?: string;
  /**
   * Who may call. `user` (the default): a valid access token, else 401. `anyone`: `@Public()`, no token looked at.
   * `anyone-or-user`: `@Public()`, and a token, when sent, changes the answer (the owner's view, their e-mail).
   */
  caller?: 'user' | 'anyone' | 'anyone-or-user';
  /** The success status (200 unless given; 202 for work that goes on after the answer) and its JSON body's schema; none for 204 or a non-JSON answer. */
  status?: 200 | 201 | 202 | 204;
  answer?: z.ZodType | { schema: SchemaObject } | { description: string };
  /** The error answers the route documents besides 401 (503 and 504 are on every route); a string says more. */
  errors?: Array<ErrorStatus | [ErrorStatus, string]>;
  body?: z.ZodType;
  query?: ApiQueryOptions[];
  headers?: ApiHeaderOptions[];
  /** Takes `Idempotency-Key`: a reuse for another request is a 422. */
  idempotent?: boolean;
  /** Reads `X-Finder-Token`; `required` where nobody but a finder may call. */
  finderToken?: 'optional' | 'required';
  consumes?: string;
  produces?: string[];
  /** `login` and `email`: the tighter limits (RATE_LIMITS); `none` for the tag scan, limited otherwise. */
  rateLimit?: 'login' | 'email' | 'none';
}

const IDEMPOTENCY_KEY_REUSED = 'Validation error; or IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another request';

/**
 * A route's whole contract in one place: who may call it, its limit, and its OpenAPI description (summary, success
 * and error answers, body, query and headers). Metadata only, read once at start-up: nothing runs per request.
 */
export function ApiRoute(options: ApiRouteOptions): MethodDecorator {
  const caller = options.caller ?? 'user';
  const status = options.status ?? 200;
  // A public route says so with an empty requirement, rather than by saying nothing; one a token changes offers both.
  const security = caller === 'anyone' ? { security: [] } : {};
  const decorators: Array<MethodDecorator | ClassDecorator> = [HttpCode(status), ApiOperation({ summary: options.summary, description: options.description, ...security })];
  if (caller !== 'anyone') decorators.push(ApiBearerAuth());
  if (caller === 'anyone-or-user') decorators.push(ApiSecurity({}));
  if (caller !== 'user') decorators.push(Public());
  if (options.rateLimit === 'none') decorators.push(SkipThrottle());
  else if (options.rateLimit) decorators.push(Throttle({ default: RATE_LIMITS[options.rateLimit] }));
  if (options.consumes) decorators.push(ApiConsumes(options.consumes));
  if (options.produces) decorators.push(ApiProduces(...options.produces));
  if (options.body) decorators.push(ApiBody({ schema: jsonSchemaOf(options.body) }));
  for (const query of options.query ?? []) decorators.push(ApiQuery(query));
  if (options.finderToken) decorators.push(ApiHeader({ ...FINDER_TOKEN_API_HEADER, required: options.finderToken === 'required' }));
  if (options.idempotent) decorators.push(ApiHeader(IDEMPOTENCY_KEY_API_HEADER));
  for (const header of options.headers ?? []) decorators.push(ApiHeader(header));
  decorators.push(ApiResponse({ status, ...successAnswer(options.answer) }));
  const errors = new Map<ErrorStatus, string | undefined>(caller === 'user' ? [[401, undefined]] : []);
  for (const error of options.errors ?? []) {
    const [code, description] = Array.isArray(error) ? error : [error, undefined];
    errors.set(code, description);
  }
  if (options.idempotent) errors.set(422, IDEMPOTENCY_KEY_REUSED);
  // Every route under the general limit can answer 429, whatever else it documents.
  if (options.rateLimit !== 'none' && !errors.has(429)) errors.set(429, undefined);
  for (const [code, description] of errors) decorators.push(ApiResponse({ ...errorResponses[code], ...(description ? { description } : {}) }));
  return applyDecorators(...decorators);
}

function successAnswer(answer: ApiRouteOptions['answer']): { description?: string; schema?: SchemaObject } {
  if (answer === undefined) return {};
  if ('safeParse' in answer) return { schema: jsonSchemaOf(answer) };
  return answer;
}
