import { Inject, Injectable, Optional } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { ZodObject, type ZodType } from 'zod';
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
 * A change whose row its event is made from (`OutboxWriter.recordFromRow`): the statement's CTEs, the last one named
 * `change` and returning one row or none, and their parameters ($1…$n).
 */
export interface RowChange<Row extends object> {
  ctes: string;
  parameters: readonly unknown[];
  /** What the change's row reads as: for the type only, never set. */
  readonly row?: Row;
}

/** Which columns of a change's row an event takes: its version, and each of the data fields named. */
export interface FromRow<Row extends object, F extends string> {
  version: keyof Row & string;
  data: { readonly [K in F]: keyof Row & string };
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
   * A change and its event as one statement, the event taking its version and some data fields from the change's row:
   * for an event that cannot be made before its change (a message's id, drawn as the row is inserted after the thread's
   * lock; the messages a receipt stamped and the version it drew). `change.ctes`' text is fixed (the statement is
   * prepared once per connection). The rest of the data is checked against the contract here, the columns taken are
   * typed by their SQL. In `transaction` (its event goes out once it commits), or without one: the statement is atomic
   * on its own, which saves a single change's BEGIN and COMMIT. Answers the row and its event, or null when the change
   * returned no row: then nothing is recorded.
   */
  async recordFromRow<S extends EventSubject, Row extends object, F extends keyof EventData<S> & string>(
    transaction: Transaction | undefined,
    change: RowChange<Row>,
    subject: S,
    data: Omit<EventData<S>, F>,
    aggregateId: string,
    from: FromRow<Row, F>,
  ): Promise<{ row: Row; event: DomainEvent<S> } | null> {
    const fields = Object.keys(from.data) as F[];
    const template = this.envelope(subject, contractWithout(subject, fields).parse(data) as EventData<S>, { aggregateId, version: 0 }, false);
    const recorded = this.recorded(template);
    const relay = this.dispatchingRelay();
    const statement = fromRowStatement(change.ctes, change.parameters.length, from.version, from.data, relay === undefined);
    const [row] = await this.database.rows<Row>(statement, [...change.parameters, ...this.parametersFor(recorded, relay !== undefined)], transaction);
    if (!row) return null;
    const column = (name: keyof Row & string) => row[name] as unknown;
    const event = {
      ...template,
      version: Number(column(from.version)),
      data: { ...template.data, ...Object.fromEntries(fields.map((field) => [field, column(from.data[field])])) },
    } as DomainEvent<S>;
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

  /** The event's envelope; its data checked against the contract unless the caller has (`check` false). */
  private envelope<S extends EventSubject>(subject: S, data: EventData<S>, aggregate: EventAggregate, check = true): DomainEvent<S> {
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
      data: check ? (EventMap[subject].data.parse(data) as EventData<S>) : data,
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

// Each subject's contract without the fields a change's row gives (recordFromRow), made once.
const contractsWithout = new Map<string, ZodType>();

function contractWithout(subject: EventSubject, fields: readonly string[]): ZodType {
  const key = `${subject}:${fields.join(',')}`;
  let contract = contractsWithout.get(key);
  if (!contract) {
    const whole = EventMap[subject].data as ZodType;
    if (!(whole instanceof ZodObject)) throw new Error(`${subject}: only an object's fields can come from a change's row`);
    contract = whole.omit(Object.fromEntries(fields.map((field) => [field, true])) as Record<string, true>);
    contractsWithout.set(key, contract);
  }
  return contract;
}

// One statement per change text (a constant: its hash is kept), way of waking the relays and columns taken
// (recordFromRow): made once, reused.
const fromRowStatements = new Map<string, Map<string, NamedStatement>>();

/**
 * `change`'s CTEs, the outbox row of the change's row (its envelope with the version and data fields set from the
 * row's columns), and the change's row as the answer; with `notify`, the NOTIFY that wakes the relays beside it.
 */
function fromRowStatement(ctes: string, before: number, version: string, data: Readonly<Record<string, string>>, notify: boolean): NamedStatement {
  let ofChange = fromRowStatements.get(ctes);
  if (!ofChange) fromRowStatements.set(ctes, (ofChange = new Map()));
  const fields = Object.entries(data);
  const variant = `${notify ? 'notify' : 'dispatch'}:${version}:${fields.map(([field, column]) => `${field}=${column}`).join(',')}`;
  let statement = ofChange.get(variant);
  if (!statement) {
    const [id, subject, envelope, headers, channel] = [1, 2, 3, 4, 5].map((index) => `$${before + index}`);
    // Names come from the code (the contract's keys, the change's columns), never from input; checked all the same.
    const name = (text: string) => {
      if (!/^[a-z_][A-Za-z0-9_]*$/i.test(text)) throw new Error(`not a name: ${text}`);
      return text;
    };
    let filled = `jsonb_set(${envelope}::jsonb, '{version}', to_jsonb(change.${name(version)}))`;
    for (const [field, column] of fields) filled = `jsonb_set(${filled}, '{data,${name(field)}}', to_jsonb(change.${name(column)}))`;
    statement = prepared(`WITH ${ctes},
  recorded AS (INSERT INTO outbox (id, subject, envelope, headers) SELECT ${id}, ${subject}, ${filled}, ${headers} FROM change RETURNING id)
  SELECT change.* FROM change CROSS JOIN recorded${notify ? ` CROSS JOIN LATERAL pg_notify(${channel}, recorded.id::text) AS notified` : ''}`);
    ofChange.set(variant, statement);
  }
  return statement;
}

// Most events a service records run one of them (`record`), so each connection keeps it prepared.
const RECORD = prepared(`WITH ${recordedRow(0, false)}`);
const RECORD_AND_NOTIFY = prepared(`WITH ${recordedRow(0, true)}`);
