import type { Transaction } from '../database/database';
import type { DomainEvent, EventSubject } from '@homing/contracts';

export const EVENT_CONSUMERS = Symbol('EVENT_CONSUMERS');

interface ConsumerBase<S extends EventSubject> {
  /**
   * `<service>__<purpose>`, e.g. `messaging__item-owners`. WARNING: persisted in NATS as the consumer's position in
   * the stream; renaming it makes a new consumer (see `startFrom`).
   */
  readonly durableName: string;
  /** The subjects it handles; they must share one stream. */
  readonly subjects: readonly S[];
  /**
   * Where a new durable consumer starts (no default: every consumer decides).
   * - `all`: from the first event the stream holds. For projections, which must see every event.
   * - `new`: from events published after the consumer was created. For side effects (e-mail, push), with
   *   `staleAfterMs`: a new or renamed consumer, or one that was down for a week, must not mail week-old messages.
   */
  readonly startFrom: 'all' | 'new';
  /** Events that occurred longer ago than this are acknowledged without being handled. Required with `new`. */
  readonly staleAfterMs?: number;
  /**
   * The durable consumers this one takes over (a consumer renamed, or several merged into one): created where the one
   * of them furthest behind had got to (the first event it had not acknowledged), so nothing they left is skipped, and
   * what they had handled comes again, for the handler's idempotency to absorb (so only a `handler` consumer may
   * succeed others: a ledger's rows are kept under the old name). `startFrom` applies when none of them exists. Each is
   * deleted once nothing pulls from it any more (the processes running its old code are gone). Their names stay
   * persisted: no new consumer may take one.
   */
  readonly succeeds?: readonly string[];
  /**
   * Each event is handled only once it occurred this long ago, and handed back (nak with the rest of the wait) until
   * then: a second pass after what the first pass of the same event could not yet see (ErasureSecondPass).
   */
  readonly handleAfterMs?: number;
}

/**
 * Idempotency by ledger: `handle` runs inside the transaction that records the event in `processed_events`, so
 * writing through `transaction` makes the side effect and the record commit together, and a redelivered event is skipped.
 */
export interface LedgerConsumer<S extends EventSubject = EventSubject> extends ConsumerBase<S> {
  readonly idempotency: 'ledger';
  handle(event: DomainEvent<S>, transaction: Transaction): Promise<void>;
}

/**
 * Idempotency by the handler itself, for side effects outside PostgreSQL (a BullMQ enqueue with a deterministic job
 * id): no database transaction is held across the side effect, and a redelivered event must change nothing.
 */
export interface HandlerConsumer<S extends EventSubject = EventSubject> extends ConsumerBase<S> {
  readonly idempotency: 'handler';
  handle(event: DomainEvent<S>): Promise<void>;
}

/** One durable JetStream consumer of a service. */
export type EventConsumer<S extends EventSubject = EventSubject> = LedgerConsumer<S> | HandlerConsumer<S>;

/**
 * A ledger consumer of one subject that must see every event the stream holds, once: a projection or an erasure (a
 * service down when it happened catches up when it starts; nothing is ever stale). Subclasses name themselves and
 * their subject, and handle each event inside the ledger's transaction.
 */
export abstract class EveryEventConsumer<S extends EventSubject> implements LedgerConsumer<S> {
  readonly subjects: readonly [S];
  readonly startFrom = 'all';
  readonly idempotency = 'ledger';

  protected constructor(
    readonly durableName: string,
    subject: S,
    readonly handleAfterMs?: number,
  ) {
    this.subjects = [subject];
  }

  abstract handle(event: DomainEvent<S>, transaction: Transaction): Promise<void>;
}
