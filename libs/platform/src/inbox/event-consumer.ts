import type { EntityManager } from 'typeorm';
import type { DomainEvent, EventSubject } from '@homing/contracts';

export const EVENT_CONSUMERS = Symbol('EVENT_CONSUMERS');

/**
 * One durable JetStream consumer of a service. WARNING: `durableName` is persisted in NATS as the consumer's
 * position in the stream; renaming it replays every retained event into the new name.
 */
export interface EventConsumer<S extends EventSubject = EventSubject> {
  /** `<service>__<purpose>`, e.g. `messaging__item-owners`. */
  readonly durableName: string;
  readonly subjects: readonly S[];
  /**
   * Applies one event. Runs inside the transaction that records the event as processed, so writing through
   * `manager` makes the side effect and the record commit together, and a redelivered event is skipped.
   */
  handle(event: DomainEvent<S>, manager: EntityManager): Promise<void>;
}
