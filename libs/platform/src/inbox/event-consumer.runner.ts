import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { context } from '@opentelemetry/api';
import { DataSource } from 'typeorm';
import { eventEnvelopeSchema, EventMap, isEventSubject, streamOfEvent, STREAMS, type DomainEvent, type EventSubject } from '@homing/contracts';
import { requestContext } from '../context';
import { consumerMetrics } from '../metrics/metrics';
import { JetStreamStreams } from '../nats/jetstream-streams';
import { NatsClient } from '../nats/nats.connection';
import { extractTraceContext } from '../tracing/propagation';
import { SpanKind, withSpan } from '../tracing/spans';
import { EVENT_CONSUMERS, type EventConsumer } from './event-consumer';

// RELIABILITY.md: explicit ack, ack wait 30 s, at most 10 deliveries with back-off, then the dead-letter subject.
const ACK_WAIT_MS = 30_000;
export const MAX_DELIVER = 10;
const RESTART_DELAY_MS = 1000;
// The ledger must outlive the stream (events kept 7 days) so a replay of anything still stored is recognised.
const KEEP_PROCESSED = '30 days';
const PURGE_EVERY_MS = 60 * 60 * 1000;

/** Delay before the next delivery of a failed event: 1 s, 2 s, 4 s … capped at a minute. */
export function redeliveryDelayMs(deliveryCount: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, deliveryCount - 1));
}

class PoisonEventError extends Error {}

/**
 * Runs a service's durable pull consumers. Each event is applied in one database transaction together with
 * a `processed_events` row, so an event delivered twice (redelivery, replay, republish) changes state once.
 * Failures are retried with back-off; malformed events and events that keep failing are copied to the
 * dead-letter subject and terminated so they stop blocking nothing and lose nothing.
 */
@Injectable()
export class EventConsumerRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventConsumerRunner.name);
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private readonly active = new Set<ConsumerMessages>();

  constructor(
    @Inject(EVENT_CONSUMERS) private readonly consumers: EventConsumer[],
    private readonly dataSource: DataSource,
    private readonly nats: NatsClient,
    private readonly streams: JetStreamStreams,
  ) {}

  private purgeTimer?: NodeJS.Timeout;

  onApplicationBootstrap(): void {
    // A hybrid app (HTTP + RPC) runs bootstrap hooks once per server: start once.
    if (this.running) return;
    this.running = true;
    for (const consumer of this.consumers) this.loops.push(this.keepConsuming(consumer));
    this.purgeTimer = setInterval(() => void this.purgeLedger(), PURGE_EVERY_MS).unref();
  }

  /** Stops pulling, lets the events being handled finish, and returns. */
  async onModuleDestroy(): Promise<void> {
    this.running = false;
    clearInterval(this.purgeTimer);
    for (const messages of this.active) await messages.close().catch(() => undefined);
    await Promise.allSettled(this.loops);
  }

  private async purgeLedger(): Promise<void> {
    await this.dataSource
      .query(`DELETE FROM processed_events WHERE processed_at < now() - interval '${KEEP_PROCESSED}'`)
      .catch((error: Error) => this.logger.warn(`purging processed_events: ${error.message}`));
  }

  private async keepConsuming(consumer: EventConsumer): Promise<void> {
    while (this.running) {
      try {
        await this.consume(consumer);
      } catch (error) {
        if (this.running) this.logger.warn(`${consumer.durableName}: ${(error as Error).message}; restarting`);
      }
      if (this.running) await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS));
    }
  }

  private async consume(consumer: EventConsumer): Promise<void> {
    await this.nats.connect();
    if (!this.nats.isConnected()) throw new Error('NATS is not connected');
    await this.streams.ensure();
    const stream = this.streamOf(consumer);
    const jsm = await this.nats.jsm();
    const subjects = consumer.subjects.map((subject) => this.nats.namespace.subject(subject));
    const config = {
      durable_name: consumer.durableName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ACK_WAIT_MS),
      max_deliver: MAX_DELIVER,
      // `filter_subjects` needs NATS 2.10; one subject works with any JetStream server.
      ...(subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects }),
    };
    const existing = await jsm.consumers.info(stream, consumer.durableName).catch(() => null);
    if (existing) await jsm.consumers.update(stream, consumer.durableName, config);
    else await jsm.consumers.add(stream, config);

    const messages = await this.nats.js.consumers.get(stream, consumer.durableName).then((c) => c.consume({ max_messages: 64 }));
    this.active.add(messages);
    // A pull consumer on a degraded connection goes quiet rather than failing: restart it on missed heartbeats.
    void (async () => {
      for await (const status of messages.status()) {
        if (status.type === 'heartbeats_missed' && status.count >= 3) {
          this.logger.warn(`${consumer.durableName}: heartbeats missed; restarting the consumer`);
          await messages.close().catch(() => undefined);
        }
      }
    })();
    try {
      for await (const msg of messages) await this.process(consumer, msg);
    } finally {
      this.active.delete(messages);
    }
  }

  private streamOf(consumer: EventConsumer): string {
    const keys = new Set(consumer.subjects.map(streamOfEvent));
    if (keys.size !== 1) throw new Error(`${consumer.durableName}: subjects must share one stream`);
    const [key] = keys;
    return this.nats.namespace.stream(STREAMS[key].name);
  }

  private async process(consumer: EventConsumer, msg: JsMsg): Promise<void> {
    let event: DomainEvent;
    try {
      event = this.decode(msg);
    } catch (error) {
      await this.deadLetter(consumer, msg, (error as Error).message);
      return;
    }
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': event.subject, 'messaging.message.id': event.id };
    await context.with(extractTraceContext(msg.headers), () =>
      requestContext.run({ correlationId: event.correlationId, causationId: event.id }, () =>
        withSpan(`${consumer.durableName} ${event.subject}`, SpanKind.CONSUMER, attributes, () => this.handle(consumer, event, msg)),
      ),
    );
  }

  private async handle(consumer: EventConsumer, event: DomainEvent, msg: JsMsg): Promise<void> {
    try {
      const applied = await this.applyOnce(consumer, event);
      msg.ack();
      consumerMetrics.handled.inc({ consumer: consumer.durableName, outcome: applied ? 'applied' : 'duplicate' });
    } catch (error) {
      const deliveries = msg.info.deliveryCount;
      if (deliveries >= MAX_DELIVER) {
        await this.deadLetter(consumer, msg, `failed ${deliveries} times: ${(error as Error).message}`);
        return;
      }
      this.logger.warn(`${consumer.durableName}: ${event.subject} ${event.id} failed (delivery ${deliveries}): ${(error as Error).message}`);
      msg.nak(redeliveryDelayMs(deliveries));
      consumerMetrics.handled.inc({ consumer: consumer.durableName, outcome: 'retried' });
    }
  }

  /** Applies the event unless this consumer already has; true if it applied it now. */
  private applyOnce(consumer: EventConsumer, event: DomainEvent): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const inserted: unknown[] = await manager.query(
        'INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id',
        [consumer.durableName, event.id],
      );
      if (inserted.length === 0) return false;
      await consumer.handle(event, manager);
      return true;
    });
  }

  private decode(msg: JsMsg): DomainEvent {
    let raw: unknown;
    try {
      raw = msg.json();
    } catch {
      throw new PoisonEventError('not JSON');
    }
    const envelope = eventEnvelopeSchema.safeParse(raw);
    if (!envelope.success) throw new PoisonEventError(`bad envelope: ${envelope.error.issues[0]?.message}`);
    const subject = envelope.data.subject;
    if (!isEventSubject(subject)) throw new PoisonEventError(`unknown subject ${subject}`);
    const data = EventMap[subject as EventSubject].data.safeParse(envelope.data.data);
    if (!data.success) throw new PoisonEventError(`bad ${subject} payload: ${data.error.issues[0]?.message}`);
    return { ...envelope.data, subject, data: data.data } as DomainEvent;
  }

  private async deadLetter(consumer: EventConsumer, msg: JsMsg, reason: string): Promise<void> {
    const headers = msg.headers;
    const subject = this.streams.deadLetterSubject(consumer.durableName);
    try {
      await this.streams.ensure();
      await this.nats.js.publish(subject, msg.data, {
        headers,
        msgID: `${consumer.durableName}:${msg.info.stream}:${msg.seq}`,
      });
      this.logger.error(`${consumer.durableName}: event ${msg.subject} #${msg.seq} dead-lettered: ${reason}`);
      msg.term(reason.slice(0, 200));
      consumerMetrics.handled.inc({ consumer: consumer.durableName, outcome: 'dead-lettered' });
    } catch (error) {
      // Not copied yet: leave it for redelivery rather than lose it.
      this.logger.warn(`${consumer.durableName}: dead-lettering #${msg.seq} failed: ${(error as Error).message}`);
      msg.nak(redeliveryDelayMs(msg.info.deliveryCount));
    }
  }
}
