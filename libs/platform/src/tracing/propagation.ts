import { context, propagation, type Context } from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/transport-node';

// W3C trace context (traceparent, tracestate) travels in NATS message headers across RPC and events.
export function injectTraceContext(headers: MsgHdrs): void {
  propagation.inject(context.active(), headers, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
}

export function extractTraceContext(headers: MsgHdrs | undefined): Context {
  if (!headers) return context.active();
  return propagation.extract(context.active(), headers, {
    get: (carrier, key) => (carrier.has(key) ? carrier.get(key) : undefined),
    keys: (carrier) => carrier.keys(),
  });
}

/** Trace headers as a plain object, for storing beside an outbox row. */
export function currentTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
