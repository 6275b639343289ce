import { applyDecorators, type ExecutionContext, HttpCode, SetMetadata } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
// Types only: @nestjs/swagger loads with the OpenAPI document (openapi.ts), never at start-up.
import type { ApiHeaderOptions, ApiQueryOptions, SchemaObject } from '@nestjs/swagger';
import { SkipThrottle, Throttle } from '@nestjs/throttler';
import type { z } from 'zod';
import { Public } from '@homing/platform';
import { RATE_LIMITS } from './rate-limits';

/** The error answers a route can document (their descriptions are in openapi.ts). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 422 | 429;

/** Where `@ApiRoute` keeps a route's options and `@ApiTags` a controller's tags, for the OpenAPI document. */
export const API_ROUTE_OPTIONS = 'homing:api-route';
export const API_TAGS = 'homing:api-tags';

export interface ApiRouteOptions {
  summary: string;
  description?: string;
  /**
   * Who may call. `user` (the default): a valid access token, else 401. `anyone`: `@Public()`, no token looked at.
   * `anyone-or-user`: `@Public()`, and a token, when sent, changes the answer (the owner's view, their e-mail).
   * `admin`: a valid access token of an admin, else 401 or 403, refused by the auth guard before any pipe reads the
   * body or the query (a non-admin learns nothing of what the route would accept).
   */
  caller?: 'user' | 'anyone' | 'anyone-or-user' | 'admin';
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
  /**
   * `login` and `email`: the tighter limits (RATE_LIMITS); `none` for the tag scan, limited otherwise; `by-route` for a
   * route that counts the default limit itself, with its other counts (`countWithRouteLimit` in rate-limits.ts).
   */
  rateLimit?: 'login' | 'email' | 'none' | 'by-route';
}

/** Whether the route's `@ApiRoute` lets only admins call it (read by the auth guard). */
export function isAdminRoute(reflector: Reflector, handler: ReturnType<ExecutionContext['getHandler']>): boolean {
  return reflector.get<ApiRouteOptions | undefined>(API_ROUTE_OPTIONS, handler)?.caller === 'admin';
}

/**
 * A route's whole contract in one place: who may call it, its limit, and its OpenAPI description (summary, success
 * and error answers, body, query and headers). Metadata only: nothing runs per request. Who may call and the limit
 * take effect now; the description is kept with the route and turned into @nestjs/swagger's decorators only when the
 * OpenAPI document is first asked for (`describeRoutes` in openapi.ts): that package and the zod → JSON Schema
 * conversions were about 8 % of the gateway's start (B8).
 */
export function ApiRoute(options: ApiRouteOptions): MethodDecorator {
  const caller = options.caller ?? 'user';
  const decorators: MethodDecorator[] = [HttpCode(options.status ?? 200), SetMetadata(API_ROUTE_OPTIONS, options)];
  if (caller === 'anyone' || caller === 'anyone-or-user') decorators.push(Public());
  if (options.rateLimit === 'none' || options.rateLimit === 'by-route') decorators.push(SkipThrottle());
  else if (options.rateLimit) decorators.push(Throttle({ default: RATE_LIMITS[options.rateLimit] }));
  return applyDecorators(...decorators);
}

/** The controller's group in the OpenAPI document (@nestjs/swagger's `ApiTags`, applied with the document). */
export function ApiTags(...tags: string[]): ClassDecorator {
  return SetMetadata(API_TAGS, tags);
}
