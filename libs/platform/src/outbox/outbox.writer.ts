import { Inject, Injectable, Optional } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { EventMap, type DomainEvent, type EventData, type EventSubject } from '@homing/contracts';
import { requestContext } from '../context';
import { Database, prepared, type Transaction } from '../database/database';
import { currentTraceHeaders } from '../tracing/propagation';
import { OUTBOX_OPTIONS, type OutboxOptions, outboxChannel } from './outbox.options';
import { OutboxRelay, type CommittedEvent } from './outbox.relay';

/** Which entity an event is about, and that entity's version after the change (bumped in the same transaction). */
export interface EventAggregate {
  aggregateId: string;
  version: number;
}

/**
 * Records events in the producer's `outbox` table inside the caller's transaction, so an event exists if and
 * only if the state change committed. Once it has committed, this process's relay publishes it at once
 * (`OutboxRelay.dispatch`); where no relay runs in the process (a command), the row's NOTIFY wakes the service's relays.
 */
@Injectable()
export class OutboxWriter {
  constructor(
    @Inject(OUTBOX_OPTIONS) private readonly options: OutboxOptions,
    private readonly database: Database,
    @Optional() private readonly relay?: OutboxRelay,
  ) {}

  // The events each open transaction recorded so far (dispatchOnCommit).
  private readonly uncommitted = new WeakMap<Transaction, CommittedEvent[]>();

  async record<S extends EventSubject>(transaction: Transaction, subject: S, data: EventData<S>, aggregate: EventAggregate): Promise<DomainEvent<S>> {
    const event = this.envelope(subject, data, aggregate);
    const recorded = this.recorded(event);
    const relay = this.dispatchingRelay();
    await this.database.rows(relay ? RECORD : RECORD_AND_NOTIFY, this.parametersFor(recorded, relay !== undefined), transaction);
    if (relay) this.dispatchOnCommit(transaction, relay).push(recorded.committed);
    return event;
  }

  /**
   * One state change and its event as a single statement, atomic without a transaction of its own (the change is
   * a data-modifying CTE beside the outbox row): for the hot paths where BEGIN and COMMIT would be half the round
   * trips (the e-mail worker's delivery receipt). `change` is one INSERT, UPDATE or DELETE whose own parameters are
   * $1…$n; it runs whether or not it touches a row, as the statements of a transaction would. Its text must be fixed
   * (each distinct one is prepared once, on every connection that runs it).
   */
  async recordAlong<S extends EventSubject>(change: { sql: string; parameters: unknown[] }, subject: S, data: EventData<S>, aggregate: EventAggregate): Promise<DomainEvent<S>> {
    const event = this.envelope(subject, data, aggregate);
    const recorded = this.recorded(event);
    const relay = this.dispatchingRelay();
    const statement = prepared(`WITH change AS (${change.sql}), ${recordedRow(change.parameters.length, relay === undefined)}`);
    await this.database.rows(statement, [...change.parameters, ...this.parametersFor(recorded, relay !== undefined)]);
    relay?.dispatch([recorded.committed]);
    return event;
  }

  /** This process's relay while it publishes events as they commit; none in a command (its rows NOTIFY instead). */
  private dispatchingRelay(): OutboxRelay | undefined {
    return this.relay?.dispatches ? this.relay : undefined;
  }

  /** The events `transaction` has recorded so far, which go out together, with one mark, once it commits. */
  private dispatchOnCommit(transaction: Transaction, relay: OutboxRelay): CommittedEvent[] {
    let events = this.uncommitted.get(transaction);
    if (!events) {
      const batch: CommittedEvent[] = [];
      transaction.afterCommit(() => relay.dispatch(batch));
      this.uncommitted.set(transaction, batch);
      events = batch;
    }
    return events;
  }

  private envelope<S extends EventSubject>(subject: S, data: EventData<S>, aggregate: EventAggregate): DomainEvent<S> {
    const context = requestContext.current();
    return {
      id: uuidv7(),
      subject,
      occurredAt: new Date().toISOString(),
      correlationId: context?.correlationId ?? uuidv7(),
      causationId: context?.causationId ?? null,
      producer: this.options.producer,
      aggregateId: aggregate.aggregateId,
      version: aggregate.version,
      // Parse, so a payload that drifted from its contract fails here, in the producer's transaction.
      data: EventMap[subject].data.parse(data) as EventData<S>,
    } as DomainEvent<S>;
  }

  /** The statement's parameters: the row's four, and the channel to NOTIFY when no relay of this process dispatches. */
  private parametersFor(recorded: { parameters: unknown[] }, dispatched: boolean): unknown[] {
    return dispatched ? recorded.parameters : [...recorded.parameters, outboxChannel(this.options.schema)];
  }

  /** The row's four parameters (id, subject, envelope, trace headers), and the event as the relay publishes it. */
  private recorded(event: DomainEvent): { parameters: unknown[]; committed: CommittedEvent } {
    const envelope = JSON.stringify(event);
    const headers = currentTraceHeaders();
    return {
      parameters: [event.id, event.subject, envelope, JSON.stringify(headers)],
      committed: { id: event.id, subject: event.subject, correlationId: event.correlationId, envelope, headers },
    };
  }
}

/**
 * The outbox row as a CTE (its four parameters numbered after `before` others) and the SELECT after it; with `notify`,
 * that SELECT is the NOTIFY that wakes the relays, in the same round trip (delivered at commit, and only if the
 * transaction commits), the channel a fifth parameter.
 */
function recordedRow(before: number, notify: boolean): string {
  const [id, subject, envelope, headers, channel] = [1, 2, 3, 4, 5].map((index) => `$${before + index}`);
  return `recorded AS (INSERT INTO outbox (id, subject, envelope, headers) VALUES (${id}, ${subject}, ${envelope}, ${headers}) RETURNING id)
  SELECT ${notify ? `pg_notify(${channel}, recorded.id::text)` : 'recorded.id'} FROM recorded`;
}

// Every event a service records runs one of them (two a finder's message: B3), so each connection keeps it prepared.
const RECORD = prepared(`WITH ${recordedRow(0, false)}`);
const RECORD_AND_NOTIFY = prepared(`WITH ${recordedRow(0, true)}`);
