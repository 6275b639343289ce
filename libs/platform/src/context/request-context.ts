import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** What follows a unit of work (an HTTP request, an RPC call, an event) through every log line and hop. */
export interface RequestContext {
  correlationId: string;
  /** The id of the event being handled, so events it causes name it as their cause. */
  causationId: string | null;
  /** Epoch ms by which the caller of the RPC being handled needs its answer; calls made inside get what is left. */
  deadline?: number;
  /** What is being done, for metrics: the RPC subject being answered or the event consumer's durable name. */
  work?: string;
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
  deadline(): number | undefined {
    return storage.getStore()?.deadline;
  },
  /** Runs `work` in no request's context: for what it starts on behalf of many (a timer shared by later requests). */
  outside<T>(work: () => T): T {
    return storage.exit(work);
  },
};

// Accept a caller's correlation id only if it is short and plain, so logs cannot be forged or flooded.
const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function acceptCorrelationId(candidate: unknown): string {
  return typeof candidate === 'string' && CORRELATION_ID.test(candidate) ? candidate : randomUUID();
}

export const CORRELATION_HEADER = 'x-correlation-id';

/** An RPC request's deadline, absolute epoch ms, so it survives any number of hops without adding up timeouts. */
export const DEADLINE_HEADER = 'homing-deadline';

// Clocks of two hosts differ by milliseconds under NTP; a deadline further than this from ours is a broken clock
// or a forged header. Ignoring it (rather than obeying it) means a skewed caller can neither make us drop all of
// its requests nor give one an endless budget.
export const MAX_DEADLINE_SKEW_MS = 60_000;

/** The caller's deadline if it is a plain epoch-ms number within a minute of `now`, else undefined. */
export function acceptDeadline(candidate: unknown, now = Date.now()): number | undefined {
  if (typeof candidate !== 'string' || !/^\d{1,15}$/.test(candidate)) return undefined;
  const deadline = Number(candidate);
  return Math.abs(deadline - now) <= MAX_DEADLINE_SKEW_MS ? deadline : undefined;
}
