import { z } from 'zod';
import { createItemBodySchema, publicItemSchema } from './items';

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
    request: createItemBodySchema.extend({ ownerUserId: z.uuid() }),
    response: publicItemSchema,
  },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type RpcSubject = keyof typeof RpcMap;
export type RpcRequest<S extends RpcSubject> = z.infer<(typeof RpcMap)[S]['request']>;
export type RpcResponse<S extends RpcSubject> = z.infer<(typeof RpcMap)[S]['response']>;

/** Reply headers carry this to tell an error reply from a success. */
export const RPC_ERROR_HEADER = 'Homing-Rpc-Error';
