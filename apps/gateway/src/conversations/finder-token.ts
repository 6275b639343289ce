import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { FINDER_TOKEN_HEADER, finderTokenSchema } from '@homing/contracts';
import type { AuthenticatedRequest } from '../auth/authenticated-user';
import type { ThreadCaller } from './thread-access-cache';

/** The header's OpenAPI description, for `@ApiHeader` on the routes that take it. */
export const FINDER_TOKEN_API_HEADER = {
  name: 'X-Finder-Token',
  required: false,
  description: 'The token a finder got with their first message (or from set-finder), kept by the browser per item.',
};

/**
 * The caller's finder token, if they sent one of the right shape. A malformed one is no token: the caller is then a
 * new finder (writing) or a stranger (reading), as with a token of a conversation that was reset.
 */
export const FinderToken = createParamDecorator((_: unknown, context: ExecutionContext): string | undefined => finderTokenOf(context.switchToHttp().getRequest<FastifyRequest>()));

function finderTokenOf(request: FastifyRequest): string | undefined {
  const parsed = finderTokenSchema.safeParse(request.headers[FINDER_TOKEN_HEADER]);
  return parsed.success ? parsed.data : undefined;
}

/** Who reads or writes a thread: the logged-in user on a public route (else null), and the finder token if any. */
export const ThreadCallerOf = createParamDecorator(
  (_: unknown, context: ExecutionContext): ThreadCaller => {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    return { viewerUserId: request.user?.id ?? null, finderToken: finderTokenOf(request) };
  },
);
