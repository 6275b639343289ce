import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AckPolicy, DeliverPolicy, type ConsumerConfig, type ConsumerInfo, type ConsumerMessages, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { escapeLiteral } from 'pg';
import { streamOfEvent, type EventSubject } from '@homing/contracts';
import { Database, type Transaction } from '../database/database';
import { JetStreamStreams } from '../nats/jetstream-streams';
import { NatsClient } from '../nats/nats.connection';
import { NatsDeadLetterSink } from './dead-letters';
import { EVENT_CONSUMERS, type EventConsumer, type LedgerConsumer } from './event-consumer';
import { backoffMs, DEFAULT_EVENT_PROCESSING, EventProcessor, type DeliveryKey, type DeliveryOutcome, type EventLedger, type EventProcessingOptions } from './event-processor';

export const EVENT_CONSUMER_OPTIONS = Symbol('EVENT_CONSUMER_OPTIONS');

export interface EventConsumerOptions extends EventProcessingOptions {
  /** How long JetStream waits for an ack before delivering an event again (RELIABILITY.md: 30 s). */
  ackWaitMs: number;
  /**
   * Events pulled at once. Each must be handled before its ack wait runs out, and a handler can take up to the
   * statement timeout (5 s) plus an RPC: so a handful, not 64.
   */
  batchSize: number;
  /**
   * How long one pull waits for events before asking again. A waiting pull gets an event as soon as it is published, so
   * this sets only what an idle consumer costs: each renewal is an unsubscribe, a subscribe and a pull request, and at
   * 5 s the renewals of notifications' consumers were most of its idle CPU (B8, docs/benchmarks.md). A reconnect pulls
   * again at once (nats.js), and a server that stops answering is noticed after two missed heartbeats (expires / 2 each).
   */
  pullExpiresMs: number;
}

const HANDLER_BUDGET_MS = 6000;
const ACK_WAIT_MS = 30_000;

export const DEFAULT_EVENT_CONSUMER_OPTIONS: EventConsumerOptions = {
  ...DEFAULT_EVENT_PROCESSING,
  ackWaitMs: ACK_WAIT_MS,
  batchSize: Math.max(1, Math.floor(ACK_WAIT_MS / HANDLER_BUDGET_MS)),
  pullExpiresMs: 30_000,
};

// The ledger must outlive the stream (events kept 7 days) so a replay of anything still stored is recognised.
const KEEP_PROCESSED = '30 days';
// A failing event is retried for minutes (DEFAULT_EVENT_PROCESSING), or for as long as a dependency is away; a count
// older than the stream's events (7 days) belongs to an event the stream no longer holds.
const KEEP_FAILURES = '7 days';
const PURGE_EVERY_MS = 60 * 60 * 1000;

// Every event every consumer handles writes its ledger row, in its transaction's BEGIN round trip (TransactionFrame):
// the consumer's name and the events' ids written in, escaped. A round trip less for each event of a ledger consumer
// (B3: the owner's e-mail waits for one) costs PostgreSQL a parse of the statement, on its own core.
const ledgerOne = (consumer: string, eventId: string) =>
  `INSERT INTO processed_events (consumer, event_id) VALUES (${escapeLiteral(consumer)}, ${escapeLiteral(eventId)}) ON CONFLICT DO NOTHING RETURNING 1`;
const ledgerMany = (consumer: string, eventIds: readonly string[]) =>
  `INSERT INTO processed_events (consumer, event_id) SELECT ${escapeLiteral(consumer)}, unnest(ARRAY[${eventIds.map(escapeLiteral).join(', ')}]::uuid[])
   ON CONFLICT DO NOTHING RETURNING event_id`;

// Written only when a handler fails, read back in the same statement.
const COUNT_FAILURE = `INSERT INTO event_handler_failures (consumer, stream, stream_sequence, failures) VALUES ($1, $2, $3, 1)
  ON CONFLICT (consumer, stream, stream_sequence) DO UPDATE SET failures = event_handler_failures.failures + 1, last_failed_at = now()
  RETURNING failures`;

/** The `processed_events` ledger and the `event_handler_failures` counts in the service's schema. */
export class DatabaseEventLedger implements EventLedger {
  constructor(private readonly database: Database) {}

  applyOnce(consumer: string, eventId: string, work: (transaction: Transaction) => Promise<void>): Promise<boolean> {
    return this.database.transaction(
      async (transaction, recorded) => {
        if (recorded.length === 0) return false;
        await work(transaction);
        return true;
      },
      { opening: ledgerOne(consumer, eventId) },
    );
  }

  applyEachOnce(consumer: string, eventIds: readonly string[], work: (transaction: Transaction, fresh: ReadonlySet<string>) => Promise<void>): Promise<ReadonlySet<string>> {
    return this.database.transaction(
      async (transaction, inserted) => {
        // PostgreSQL answers a uuid in lower case, whatever case the event's id was written in.
        const recorded = new Set(inserted.map((row) => String(row.event_id)));
        const fresh = new Set(eventIds.filter((id) => recorded.has(id.toLowerCase())));
        if (fresh.size > 0) await work(transaction, fresh);
        return fresh;
      },
      { opening: ledgerMany(consumer, eventIds) },
    );
  }

  async countFailure(consumer: string, { stream, sequence }: DeliveryKey): Promise<number> {
    const [row] = await this.database.rows<{ failures: number }>(COUNT_FAILURE, [consumer, stream, sequence]);
    return row.failures;
  }

  async forgetFailures(consumer: string, { stream, sequence }: DeliveryKey): Promise<void> {
    await this.database.affected('DELETE FROM event_handler_failures WHERE consumer = $1 AND stream = $2 AND stream_sequence = $3', [consumer, stream, sequence]);
  }
}

/**
 * Runs a service's durable pull consumers: pulls a few events at a time, hands each to the EventProcessor (which
 * applies it once, retries, or dead-letters it; a handler-idempotent consumer's events side by side), stops pulling
 * while a dependency is away, and on shutdown leaves at once, handing back (nak) what it had pulled but not begun.
 *
 * NATS 2.9 (this machine's) allows one filter subject per consumer: a consumer of several subjects filters on their
 * common prefix (`items.item.>`) and skips, acknowledged, what is not its own.
 */
@Injectable()
export class EventConsumerRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventConsumerRunner.name);
  private readonly options: EventConsumerOptions;
  private readonly processor: EventProcessor;
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private readonly active = new Set<ConsumerMessages>();
  private readonly sleepers = new Set<() => void>();
  // Consumers whose predecessors are being retired (`succeeds`): one retirement each per process, however often it restarts.
  private readonly retiring = new Set<string>();
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    @Inject(EVENT_CONSUMERS) private readonly consumers: EventConsumer[],
    private readonly database: Database,
    private readonly nats: NatsClient,
    private readonly streams: JetStreamStreams,
    @Optional() @Inject(EVENT_CONSUMER_OPTIONS) options?: Partial<EventConsumerOptions>,
  ) {
    this.options = { ...DEFAULT_EVENT_CONSUMER_OPTIONS, ...options };
    for (const consumer of consumers) validateConsumer(consumer);
    this.processor = new EventProcessor(new DatabaseEventLedger(database), new NatsDeadLetterSink(nats, streams), this.options, (subject) =>
      nats.namespace.unprefix(subject),
    );
  }

  onApplicationBootstrap(): void {
    // A hybrid app (HTTP + RPC) runs bootstrap hooks once per server: start once.
    if (this.running) return;
    this.running = true;
    for (const consumer of this.consumers) this.loops.push(this.keepConsuming(consumer));
    this.purgeTimer = setInterval(() => void this.purgeLedger(), PURGE_EVERY_MS).unref();
  }

  /** Stops pulling, lets the event being handled finish, hands back what was pulled, and returns. */
  async onModuleDestroy(): Promise<void> {
    this.running = false;
    clearInterval(this.purgeTimer);
    for (const wake of this.sleepers) wake();
    for (const messages of this.active) await messages.close().catch(() => undefined);
    await Promise.allSettled(this.loops);
  }

  private async purgeLedger(): Promise<void> {
    await this.database
      .affected(`DELETE FROM processed_events WHERE processed_at < now() - interval '${KEEP_PROCESSED}'`)
      .catch((error: Error) => this.logger.warn(`purging processed_events: ${error.message}`));
    await this.database
      .affected(`DELETE FROM event_handler_failures WHERE last_failed_at < now() - interval '${KEEP_FAILURES}'`)
      .catch((error: Error) => this.logger.warn(`purging event_handler_failures: ${error.message}`));
  }

  private async keepConsuming(consumer: EventConsumer): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        await this.consume(consumer);
        failures = 0;
      } catch (error) {
        failures += 1;
        if (this.running) this.logger.warn(`${consumer.durableName}: ${(error as Error).message}; restarting`);
      }
      if (this.running) await this.sleep(backoffMs(Math.max(1, failures), this.options));
    }
  }

  private async consume(consumer: EventConsumer): Promise<void> {
    await this.nats.connect();
    if (!this.nats.isConnected()) throw new Error('NATS is not connected');
    await this.streams.ensure();
    const stream = this.streamOf(consumer);
    await this.declare(consumer, stream);
    if (consumer.succeeds?.length && !this.retiring.has(consumer.durableName)) {
      this.retiring.add(consumer.durableName);
      this.loops.push(this.retirePredecessors(consumer, stream, consumer.succeeds));
    }
    const pull = await this.nats.js.consumers.get(stream, consumer.durableName);
    let dependencyFailures = 0;
    while (this.running) {
      const messages = await pull.fetch({ max_messages: this.options.batchSize, expires: this.options.pullExpiresMs });
      this.active.add(messages);
      let waitForDependency = false;
      const settle = (outcome: DeliveryOutcome) => {
        if (outcome === 'dependency') waitForDependency = true;
        else if (!waitForDependency) dependencyFailures = 0;
      };
      // A handler-idempotent consumer holds no transaction while it handles an event, so the events of a batch are
      // handled side by side as they arrive, as replicas would handle them (B3, B5: one at a time, a burst of messages
      // queued behind each event's round trips). A ledger consumer holds a pooled connection for its transaction, one
      // transaction at a time, so a service's consumers never take more of its pool than they have consumers: an event
      // that arrives alone is handled at once, and those that arrive while a transaction is open share the next one
      // (one ledger statement, one BEGIN and one COMMIT for all of them).
      // Every handling this batch began (an event, or a group of a ledger consumer's): all are awaited before the next
      // pull, and a failure of any is rethrown only then, so none is left running or unobserved (an unobserved
      // rejection would end the process).
      const inHand: Promise<void>[] = [];
      const waiting: JsMsg[] = [];
      let handling: Promise<void> | undefined;
      const handleWaiting = async (): Promise<void> => {
        try {
          while (waiting.length > 0 && this.running && !waitForDependency) {
            const group = waiting.splice(0);
            for (const outcome of await this.processor.processEach(consumer as LedgerConsumer, group, dependencyFailures)) settle(outcome);
          }
          // Shutting down, or a dependency went away: hand back what is still waiting.
          for (const msg of waiting.splice(0)) msg.nak();
        } finally {
          handling = undefined;
        }
      };
      let outcomes: PromiseSettledResult<void>[] = [];
      try {
        for await (const msg of messages) {
          // Shutting down, or a dependency went away for an earlier event: hand the rest back undelivered.
          if (!this.running || waitForDependency) {
            msg.nak();
            continue;
          }
          if (consumer.idempotency === 'handler') {
            inHand.push(this.processor.process(consumer, msg, dependencyFailures).then(settle));
            continue;
          }
          waiting.push(msg);
          if (!handling) {
            handling = handleWaiting();
            inHand.push(handling);
          }
        }
      } finally {
        // Those in hand finish (their acks or naks are sent) before the next pull, and before shutdown returns.
        outcomes = await Promise.allSettled(inHand);
        this.active.delete(messages);
      }
      // Restarts the consumer (keepConsuming); what was not acknowledged is delivered again.
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failed) throw failed.reason;
      if (waitForDependency && this.running) {
        dependencyFailures += 1;
        await this.waitForDependencies(consumer, dependencyFailures);
      }
    }
  }

  /** Pauses pulling: sleeps the back-off, then until the database answers again (ledger consumers use it). */
  private async waitForDependencies(consumer: EventConsumer, failures: number): Promise<void> {
    let attempt = failures;
    while (this.running) {
      await this.sleep(backoffMs(attempt, this.options));
      if (consumer.idempotency === 'handler') return;
      const answers = await this.database.rows('SELECT 1').then(
        () => true,
        () => false,
      );
      if (answers) return;
      attempt += 1;
    }
  }

  /** Creates the durable consumer, or brings an existing one's settings up to date (never its position). */
  private async declare(consumer: EventConsumer, stream: string): Promise<void> {
    const jsm = await this.nats.jsm();
    const filter = filterSubjectOf(consumer.subjects.map((subject) => this.nats.namespace.subject(subject)));
    const settings: Partial<ConsumerConfig> = {
      ack_wait: nanos(this.options.ackWaitMs),
      // Unlimited: the client decides when to give up (only handler errors count), so an event whose handler
      // crashes the process, or whose database is down for an hour, is never dropped by the server.
      max_deliver: -1,
      ...(filter ? { filter_subject: filter } : {}),
    };
    const existing = await consumerInfo(jsm, stream, consumer.durableName);
    if (!existing) {
      const successorStart = await this.successorStart(jsm, stream, consumer.succeeds ?? []);
      await jsm.consumers.add(stream, {
        ...settings,
        durable_name: consumer.durableName,
        ack_policy: AckPolicy.Explicit,
        ...(successorStart !== undefined
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: successorStart }
          : { deliver_policy: consumer.startFrom === 'all' ? DeliverPolicy.All : DeliverPolicy.New }),
      });
      const from = successorStart !== undefined ? `event ${successorStart}, where ${(consumer.succeeds ?? []).join(', ')} had got to` : consumer.startFrom === 'all' ? 'the first event' : 'new events';
      this.logger.log(`${consumer.durableName}: created, starting from ${from}`);
      return;
    }
    const drift =
      existing.config.ack_wait !== settings.ack_wait ||
      existing.config.max_deliver !== settings.max_deliver ||
      (existing.config.filter_subject ?? '') !== (settings.filter_subject ?? '');
    // The start position only applies to a new consumer; an existing one keeps its place in the stream.
    if (drift) await jsm.consumers.update(stream, consumer.durableName, settings);
  }

  /**
   * Where a consumer that takes over `predecessors` starts: at the first event the one furthest behind had not
   * acknowledged; undefined when none of them exists.
   */
  private async successorStart(jsm: JetStreamManager, stream: string, predecessors: readonly string[]): Promise<number | undefined> {
    const starts: number[] = [];
    for (const name of predecessors) {
      const info = await consumerInfo(jsm, stream, name);
      if (info) starts.push(firstUnacknowledged(info));
    }
    return starts.length > 0 ? Math.min(...starts) : undefined;
  }

  /**
   * Deletes the consumers `consumer` took over once nothing pulls from them: each is looked at twice, two pulls' length
   * apart, and deleted when neither look found a pull waiting and nothing was delivered in between (a process running
   * its old code always has a pull waiting, or is being given events). One still in use is looked at again later; the
   * successor already handles every event it would, so waiting costs only its duplicates, which idempotency absorbs.
   */
  private async retirePredecessors(consumer: EventConsumer, stream: string, predecessors: readonly string[]): Promise<void> {
    let earlier = new Map<string, PullActivity>();
    let left = [...predecessors];
    while (this.running && left.length > 0) {
      try {
        const jsm = await this.nats.jsm();
        const now = new Map<string, PullActivity>();
        for (const name of left) {
          const info = await consumerInfo(jsm, stream, name);
          if (info) now.set(name, { waiting: info.num_waiting, delivered: info.delivered.stream_seq });
        }
        for (const [name, activity] of now) {
          const before = earlier.get(name);
          if (!before || before.waiting > 0 || activity.waiting > 0 || before.delivered !== activity.delivered) continue;
          // Another replica may have deleted it first.
          await jsm.consumers.delete(stream, name).catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          });
          now.delete(name);
          this.logger.log(`${name}: retired, ${consumer.durableName} handles its events`);
        }
        left = [...now.keys()];
        earlier = now;
      } catch (error) {
        // NATS away: look again later.
        this.logger.warn(`${consumer.durableName}: retiring ${left.join(', ')}: ${(error as Error).message}`);
      }
      if (left.length > 0) await this.sleep(2 * this.options.pullExpiresMs);
    }
  }

  private streamOf(consumer: EventConsumer): string {
    const keys = new Set(consumer.subjects.map((subject) => streamOfEvent(subject as EventSubject)));
    if (keys.size !== 1) throw new Error(`${consumer.durableName}: subjects must share one stream`);
    const [key] = keys;
    return this.streams.streamName(key);
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}

/**
 * The one filter subject of a consumer: its subject, or the common prefix of its subjects followed by `>`
 * (`items.item.created.v1` + `items.item.renamed.v1` → `items.item.>`); undefined (the whole stream) if none.
 */
export function filterSubjectOf(subjects: readonly string[]): string | undefined {
  if (subjects.length === 1) return subjects[0];
  const tokens = subjects.map((subject) => subject.split('.'));
  const common: string[] = [];
  for (let index = 0; tokens.every((subject) => index < subject.length - 1 && subject[index] === tokens[0][index]); index += 1) {
    common.push(tokens[0][index]);
  }
  return common.length > 0 ? `${common.join('.')}.>` : undefined;
}

/** What a look at a predecessor saw: pulls waiting, and the last event delivered to it. */
interface PullActivity {
  waiting: number;
  delivered: number;
}

function isNotFound(error: unknown): boolean {
  const apiError = (error as { api_error?: { err_code?: number } }).api_error;
  return apiError?.err_code === 10014 || /consumer not found/i.test(String(error));
}

/** The durable consumer's info; null when it does not exist. */
function consumerInfo(jsm: JetStreamManager, stream: string, name: string): Promise<ConsumerInfo | null> {
  return jsm.consumers.info(stream, name).catch((error: unknown) => {
    if (isNotFound(error)) return null;
    throw error;
  });
}

/**
 * The first event of the stream a consumer had not acknowledged: after its ack floor; with nothing acknowledged and
 * nothing delivered, after where it began (NATS 2.9 reports that as the delivered position, the floor as 0); with
 * events delivered but none acknowledged, its beginning is not reported, so the stream's first event (what is stale is
 * skipped, what was handled comes again).
 */
export function firstUnacknowledged(info: { ack_floor: { consumer_seq: number; stream_seq: number }; delivered: { consumer_seq: number; stream_seq: number } }): number {
  if (info.ack_floor.stream_seq > 0) return info.ack_floor.stream_seq + 1;
  if (info.delivered.consumer_seq === 0) return info.delivered.stream_seq + 1;
  return 1;
}

function validateConsumer(consumer: EventConsumer): void {
  if (consumer.subjects.length === 0) throw new Error(`${consumer.durableName}: no subjects`);
  if (consumer.succeeds?.length && consumer.idempotency !== 'handler') {
    throw new Error(`${consumer.durableName}: only a handler-idempotent consumer can take over others (a ledger's rows are theirs)`);
  }
  if (consumer.startFrom === 'new' && !(typeof consumer.staleAfterMs === 'number' && consumer.staleAfterMs > 0)) {
    throw new Error(`${consumer.durableName}: a consumer that starts from new events must say after how long an event is stale (staleAfterMs)`);
  }
}
