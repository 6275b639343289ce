import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** What follows a unit of work (an HTTP request, an RPC call, an event) through every log line and hop. */
export interface RequestContext {
  correlationId: string;
  /** The id of the event being handled, so events it causes name it as their cause. */
  causationId: string | null;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const requestContext = {
  run<T>(context: RequestContext, work: () => T): T {
    return storage.run(context, work);
  },
  current(): RequestContext | undefined {
    return storage.getStore();
  },
  correlationId(): string {
    return storage.getStore()?.correlationId ?? randomUUID();
  },
};

// Accept a caller's correlation id only if it is short and plain, so logs cannot be forged or flooded.
const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function acceptCorrelationId(candidate: unknown): string {
  return typeof candidate === 'string' && CORRELATION_ID.test(candidate) ? candidate : randomUUID();
}

export const CORRELATION_HEADER = 'x-correlation-id';
