import { Inject, Injectable, Optional } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { EventMap, type DomainEvent, type EventData, type EventSubject } from '@homing/contracts';
import { requestContext } from '../context';
import { Database, prepared, type NamedStatement, type Transaction } from '../database/database';
import { currentTraceHeaders } from '../tracing/propagation';
import { OUTBOX_OPTIONS, type OutboxOptions, outboxChannel } from './outbox.options';
import { OutboxRelay, type CommittedEvent } from './outbox.relay';

/** Which entity an event is about, and that entity's version after the change (bumped in the same transaction). */
export interface EventAggregate {
  aggregateId: string;
  version: number;
}

/**
 * A change that draws the number its event carries (`OutboxWriter.recordNumbered`): the statement's CTEs, the last one
 * named `change` and returning one row or none with an `id` column, and their parameters ($1…$n).
 */
export interface NumberedChange<Row extends { id: number }> {
  ctes: string;
  parameters: readonly unknown[];
  /** What the change's row reads as: for the type only, never set. */
  readonly row?: Row;
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

  /**
   * A change that draws a number as it runs and the event that carries that number, as one statement: for an event
   * that cannot be made before its change (a message's id, drawn as the row is inserted, after the thread's lock).
   * `change.ctes`' text is fixed (the statement is prepared once per connection). The event's version, and
   * each of its data fields named in `numbered`, are that row's `id`. In `transaction` (its events go out once it
   * commits), or without one: the statement is atomic on its own, which saves a single change's BEGIN and COMMIT.
   * Answers the row and its event, or null when the change returned no row: then nothing is recorded.
   */
  async recordNumbered<S extends EventSubject, Row extends { id: number }, K extends NumberedFields<S>>(
    transaction: Transaction | undefined,
    change: NumberedChange<Row>,
    subject: S,
    data: Omit<EventData<S>, K>,
    aggregateId: string,
    numbered: readonly K[],
  ): Promise<{ row: Row; event: DomainEvent<S> } | null> {
    // Checked against its contract with the numbers standing in as 1: the statement puts the real ones in.
    const template = this.envelope(subject, { ...data, ...Object.fromEntries(numbered.map((field) => [field, 1])) } as EventData<S>, { aggregateId, version: 1 });
    const recorded = this.recorded(template);
    const relay = this.dispatchingRelay();
    const statement = numberedStatement(change, numbered, relay === undefined);
    const [row] = await this.database.rows<Row>(statement, [...change.parameters, ...this.parametersFor(recorded, relay !== undefined)], transaction);
    if (!row) return null;
    const id = Number(row.id);
    const event = { ...template, version: id, data: { ...template.data, ...Object.fromEntries(numbered.map((field) => [field, id])) } } as DomainEvent<S>;
    if (relay) {
      const committed = { ...recorded.committed, envelope: JSON.stringify(event) };
      if (transaction) this.dispatchOnCommit(transaction, relay).push(committed);
      else relay.dispatch([committed]);
    }
    return { row, event };
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

/** The data fields of an event that are numbers: those `recordNumbered` may fill with the number its change draws. */
type NumberedFields<S extends EventSubject> = { [F in keyof EventData<S>]: EventData<S>[F] extends number ? F : never }[keyof EventData<S>] & string;

// One statement per change text (a constant: its hash is kept), way of waking the relays and numbered fields
// (recordNumbered): made once, reused.
const numberedStatements = new Map<string, Map<string, NamedStatement>>();

/**
 * `change`'s CTEs, the outbox row of the change's row (its envelope with the version and the numbered fields set to
 * the row's id), and the change's row as the answer; with `notify`, beside it the NOTIFY that wakes the relays.
 */
function numberedStatement(change: NumberedChange<{ id: number }>, numbered: readonly string[], notify: boolean): NamedStatement {
  let ofChange = numberedStatements.get(change.ctes);
  if (!ofChange) numberedStatements.set(change.ctes, (ofChange = new Map()));
  const variant = `${notify ? 'notify' : 'dispatch'}:${numbered.join(',')}`;
  let statement = ofChange.get(variant);
  if (!statement) {
    const before = change.parameters.length;
    const [id, subject, envelope, headers, channel] = [1, 2, 3, 4, 5].map((index) => `$${before + index}`);
    let filled = `jsonb_set(${envelope}::jsonb, '{version}', to_jsonb(change.id::bigint))`;
    for (const field of numbered) {
      // Field names come from the code (the contract's keys), never from input; checked so a path cannot be made of one.
      if (!/^[A-Za-z][A-Za-z0-9]*$/.test(field)) throw new Error(`not a data field: ${field}`);
      filled = `jsonb_set(${filled}, '{data,${field}}', to_jsonb(change.id::bigint))`;
    }
    statement = prepared(`WITH ${change.ctes},
  recorded AS (INSERT INTO outbox (id, subject, envelope, headers) SELECT ${id}, ${subject}, ${filled}, ${headers} FROM change RETURNING id)
  SELECT change.* FROM change CROSS JOIN recorded${notify ? ` CROSS JOIN LATERAL pg_notify(${channel}, recorded.id::text) AS notified` : ''}`);
    ofChange.set(variant, statement);
  }
  return statement;
}

// Every event a service records runs one of them (two a finder's message: B3), so each connection keeps it prepared.
const RECORD = prepared(`WITH ${recordedRow(0, false)}`);
const RECORD_AND_NOTIFY = prepared(`WITH ${recordedRow(0, true)}`);
