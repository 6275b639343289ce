import type { NatsConnection } from '@nats-io/transport-node';
import type { DomainEvent, EventSubject } from '@homing/contracts';

/**
 * Resolves with the first event on `subject` (as published by an outbox relay, within `namespace`) that matches
 * `predicate`. Subscribe before causing the event.
 */
export function waitForEvent<S extends EventSubject>(
  nc: NatsConnection,
  namespace: string,
  subject: S,
  predicate: (event: DomainEvent<S>) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<DomainEvent<S>> {
  const wireSubject = namespace ? `${namespace}.${subject}` : subject;
  const subscription = nc.subscribe(wireSubject);
  return new Promise<DomainEvent<S>>((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.unsubscribe();
      reject(new Error(`no ${subject} event within ${timeoutMs} ms`));
    }, timeoutMs);
    void (async () => {
      for await (const msg of subscription) {
        const event = msg.json<DomainEvent<S>>();
        if (predicate(event)) {
          clearTimeout(timer);
          subscription.unsubscribe();
          resolve(event);
          return;
        }
      }
    })();
  });
}
