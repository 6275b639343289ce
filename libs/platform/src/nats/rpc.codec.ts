import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { RPC_ERROR_HEADER, type RpcErrorBody } from '@homing/contracts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value ?? null));
}

export function decodeJson(data: Uint8Array): unknown {
  return data.length === 0 ? undefined : JSON.parse(decoder.decode(data));
}

export function errorReplyHeaders(): MsgHdrs {
  const headers = natsHeaders();
  headers.set(RPC_ERROR_HEADER, '1');
  return headers;
}

export function isErrorReply(headers: MsgHdrs | undefined): boolean {
  return headers?.get(RPC_ERROR_HEADER) === '1';
}

export function isRpcErrorBody(value: unknown): value is RpcErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return typeof body.status === 'number' && typeof body.response_code === 'string' && typeof body.message === 'string';
}
