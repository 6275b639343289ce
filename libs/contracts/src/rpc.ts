import { z } from 'zod';
import { createItemBodySchema, publicItemSchema } from './items';

/**
 * An `Idempotency-Key` a client sends with a state-changing request: 1–128 letters, digits, `.`, `_`, `:` or `-`
 * (a UUID fits). A retry with the same key within 24 h gets the first answer instead of doing the work again.
 */
export const idempotencyKeySchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/);

/**
 * Request/reply subjects `<service>.rpc.<verb>`, each with its request and response schema.
 * The server validates requests against these before a handler runs.
 */
export const RpcMap = {
  'items.rpc.get-by-code': {
    request: z.object({ code: z.string(), viewerUserId: z.uuid().nullable() }),
    response: publicItemSchema,
  },
  'items.rpc.create': {
    request: createItemBodySchema.extend({ ownerUserId: z.uuid(), idempotencyKey: idempotencyKeySchema.optional() }),
    response: publicItemSchema,
  },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type RpcSubject = keyof typeof RpcMap;
export type RpcRequest<S extends RpcSubject> = z.infer<(typeof RpcMap)[S]['request']>;
export type RpcResponse<S extends RpcSubject> = z.infer<(typeof RpcMap)[S]['response']>;

/** Reply headers carry this to tell an error reply from a success. */
export const RPC_ERROR_HEADER = 'Homing-Rpc-Error';
