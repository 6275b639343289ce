import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { idempotencyKeySchema, ResponseCode } from '@homing/contracts';
import { ApiError } from './http-error';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** The header's OpenAPI description, for `@ApiHeader` on the routes that take it. */
export const IDEMPOTENCY_KEY_API_HEADER = {
  name: 'Idempotency-Key',
  required: false,
  description: 'Up to 128 letters, digits, ".", "_", ":" or "-". A retry with the same key within 24 h gets the first answer.',
};

/** The request's `Idempotency-Key`, if it sent one; 400 if the key is malformed (repeated headers included). */
export function parseIdempotencyKey(header: unknown): string | undefined {
  if (header === undefined) return undefined;
  const parsed = idempotencyKeySchema.safeParse(header);
  if (!parsed.success) {
    throw new ApiError(400, ResponseCode.MALFORMED_REQUEST, 'The Idempotency-Key header must be 1 to 128 letters, digits, ".", "_", ":" or "-".');
  }
  return parsed.data;
}

/** The optional `Idempotency-Key` of a state-changing route; the service stores its first answer under it. */
export const IdempotencyKey = createParamDecorator((_: unknown, context: ExecutionContext) =>
  parseIdempotencyKey(context.switchToHttp().getRequest<FastifyRequest>().headers[IDEMPOTENCY_KEY_HEADER]),
);
