import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { FINDER_TOKEN_HEADER, finderTokenSchema } from '@homing/contracts';

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
export const FinderToken = createParamDecorator((_: unknown, context: ExecutionContext): string | undefined => {
  const parsed = finderTokenSchema.safeParse(context.switchToHttp().getRequest<FastifyRequest>().headers[FINDER_TOKEN_HEADER]);
  return parsed.success ? parsed.data : undefined;
});
