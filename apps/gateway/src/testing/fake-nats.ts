import { randomUUID } from 'node:crypto';
import type { NatsConnection, Status } from '@nats-io/transport-node';
import { NatsClient, NatsNamespace } from '@homing/platform';

type Callback = (error: Error | null, msg: unknown) => void;

/**
 * Just enough of the process's NATS client for specs of what follows events: subscriptions by subject, a flush the
 * server answers at once, and a status stream the spec writes to.
 */
export function fakeNats() {
  const callbacks = new Map<string, Callback>();
  const statuses: Status[] = [];
  let wake: (() => void) | undefined;
  const connection = {
    subscribe: (subject: string, options: { callback: Callback }) => {
      callbacks.set(subject, options.callback);
      return { unsubscribe: () => callbacks.delete(subject) };
    },
    flush: () => Promise.resolve(),
    isClosed: () => false,
    status: () => ({
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const status = statuses.shift();
          if (status) yield status;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    }),
  };
  return {
    client: { connect: () => Promise.resolve(connection as unknown as NatsConnection), namespace: new NatsNamespace('') } as unknown as NatsClient,
    /** Delivers an event in its envelope, as the producer's outbox relay publishes it. */
    publish(subject: string, data: unknown, version = 1) {
      const event = { id: randomUUID(), subject, occurredAt: new Date().toISOString(), correlationId: 'c', causationId: null, producer: 'test', aggregateId: 'a', version, data };
      callbacks.get(subject)?.(null, { json: () => event });
    },
    /** What nats.js does when the server ends a subscription (a permissions violation, say). */
    failSubscription(subject: string) {
      callbacks.get(subject)?.(new Error('Permissions Violation for Subscription to "x"'), {});
    },
    status(status: Status) {
      statuses.push(status);
      wake?.();
    },
  };
}

/** Lets the connection, the first flush and any status written settle. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
