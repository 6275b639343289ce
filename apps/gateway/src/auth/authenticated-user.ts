import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ResponseCode } from '@homing/contracts';
import { ApiError } from '../http/http-error';

/** The caller, from a verified and unrevoked access token. */
export interface AuthenticatedUser {
  id: string;
  email: string;
  isAdmin: boolean;
  sessionId: string;
}

/** What the auth guard leaves on the request. */
export type AuthenticatedRequest = FastifyRequest & {
  /** null until the guard finds a valid token (declared on every request: applyHttpContract). */
  user?: AuthenticatedUser | null;
  /** Set by the guard: the route is `@Public()`, so a stranger may call it (its answers tell strangers things). */
  publicRoute?: boolean;
};

/** The logged-in caller. On a route that is not `@Public()` the guard has already refused anyone else. */
export const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): AuthenticatedUser => {
  const user = context.switchToHttp().getRequest<AuthenticatedRequest>().user;
  if (!user) throw new ApiError(401, ResponseCode.UNAUTHORIZED);
  return user;
});

/** On a `@Public()` route: the caller if they sent a valid token, else null (an anonymous finder). */
export const OptionalCurrentUser = createParamDecorator(
  (_: unknown, context: ExecutionContext): AuthenticatedUser | null => context.switchToHttp().getRequest<AuthenticatedRequest>().user ?? null,
);
