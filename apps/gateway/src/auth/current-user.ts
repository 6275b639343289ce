import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ResponseCode } from '@homing/contracts';
import { ApiError } from '../http/http-error';

/**
 * TEMPORARY, until identity issues tokens: the caller names itself with an `X-User-Id` header (a UUID).
 * It authenticates nothing; the bearer-token guard replaces it. See the gateway README.
 */
export const USER_ID_HEADER = 'x-user-id';
const userId = z.uuid();

function userIdOf(request: FastifyRequest): string | null {
  const parsed = userId.safeParse(request.headers[USER_ID_HEADER]);
  return parsed.success ? parsed.data : null;
}

/** The caller's user id, or null for an anonymous visitor. */
export const OptionalUserId = createParamDecorator((_: unknown, context: ExecutionContext) => userIdOf(context.switchToHttp().getRequest()));

/** The caller's user id; 401 when there is none. */
export const RequiredUserId = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const id = userIdOf(context.switchToHttp().getRequest());
  if (!id) throw new ApiError(401, ResponseCode.UNAUTHORIZED);
  return id;
});
