import { Inject, Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { EventMap, type DomainEvent, type EventData, type EventSubject } from '@homing/contracts';
import { requestContext } from '../context';
import { Database, prepared, type Transaction } from '../database/database';
import { currentTraceHeaders } from '../tracing/propagation';
import { OUTBOX_OPTIONS, type OutboxOptions, outboxChannel } from './outbox.options';

/** Which entity an event is about, and that entity's version after the change (bumped in the same transaction). */
export interface EventAggregate {
  aggregateId: string;
  version: number;
}

/**
 * Records events in the producer's `outbox` table inside the caller's transaction, so an event exists if and
 * only if the state change committed. The relay publishes it afterwards.
 */
@Injectable()
export class OutboxWriter {
  constructor(
    @Inject(OUTBOX_OPTIONS) private readonly options: OutboxOptions,
    private readonly database: Database,
  ) {}

  async record<S extends EventSubject>(transaction: Transaction, subject: S, data: EventData<S>, aggregate: EventAggregate): Promise<DomainEvent<S>> {
    const event = this.envelope(subject, data, aggregate);
    await this.database.rows(RECORD_AND_NOTIFY, this.recordParameters(event), transaction);
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
    const statement = prepared(`WITH change AS (${change.sql}), ${recordAndNotify(change.parameters.length)}`);
    await this.database.rows(statement, [...change.parameters, ...this.recordParameters(event)]);
    return event;
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

  private recordParameters(event: DomainEvent): unknown[] {
    return [event.id, event.subject, JSON.stringify(event), JSON.stringify(currentTraceHeaders()), outboxChannel(this.options.schema)];
  }
}

/**
 * The outbox row and the NOTIFY that wakes the relays, in one round trip (the notification is delivered at commit, and
 * only if the transaction commits): a CTE and the SELECT after it, its five parameters numbered after `before` others.
 */
function recordAndNotify(before: number): string {
  const [id, subject, envelope, headers, channel] = [1, 2, 3, 4, 5].map((index) => `$${before + index}`);
  return `recorded AS (INSERT INTO outbox (id, subject, envelope, headers) VALUES (${id}, ${subject}, ${envelope}, ${headers}) RETURNING id)
  SELECT pg_notify(${channel}, recorded.id::text) FROM recorded`;
}

// Every event a service records runs it (two a finder's message: B3), so each connection keeps it prepared.
const RECORD_AND_NOTIFY = prepared(`WITH ${recordAndNotify(0)}`);
