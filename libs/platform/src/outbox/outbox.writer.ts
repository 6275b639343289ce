import { Inject, Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { EventMap, type DomainEvent, type EventData, type EventSubject } from '@homing/contracts';
import { requestContext } from '../context';
import { Database, type Transaction } from '../database/database';
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
    const context = requestContext.current();
    const event = {
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
    await this.database.affected(
      'INSERT INTO outbox (id, subject, envelope, headers) VALUES ($1, $2, $3, $4)',
      [event.id, subject, JSON.stringify(event), JSON.stringify(currentTraceHeaders())],
      transaction,
    );
    // Delivered at commit, and only if the transaction commits: wakes the relays at once.
    await this.database.rows('SELECT pg_notify($1, $2)', [outboxChannel(this.options.schema), event.id], transaction);
    return event;
  }
}
