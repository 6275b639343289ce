import { Logger } from '@nestjs/common';
import type { JsMsg } from '@nats-io/jetstream';
import { context } from '@opentelemetry/api';
import type { Transaction } from '../database/database';
import { isTransientConflict, scrubQueryError } from '../database/query-error';
import { eventEnvelopeSchema, EventMap, isEventSubject, type DomainEvent, type EventSubject } from '@homing/contracts';
import { requestContext } from '../context';
import { consumerMetrics } from '../metrics/metrics';
import { isDependencyUnavailable, RpcError } from '../nats/rpc-error';
import { extractTraceContext } from '../tracing/propagation';
import { SpanKind, withSpan } from '../tracing/spans';
import type { EventConsumer, LedgerConsumer } from './event-consumer';

/** Set on a dead letter republished by `replay-dead-letters`: only the named consumer handles it again. */
export const REPLAY_FOR_HEADER = 'Homing-Replay-For';

export interface EventProcessingOptions {
  /** Handler errors on a well-formed event (not dependency failures) before it is dead-lettered. */
  deadLetterAfter: number;
  /** First delay before a failed event is delivered again; doubles per failure. */
  baseBackoffMs: number;
  /** Cap of that delay, and of the pause while a dependency is down. */
  maxBackoffMs: number;
}

// RELIABILITY.md: a handler error is retried with back-off, at most 10 times, then the event is dead-lettered.
export const DEFAULT_EVENT_PROCESSING: EventProcessingOptions = { deadLetterAfter: 10, baseBackoffMs: 1000, maxBackoffMs: 60_000 };

/** Delay after the n-th consecutive failure (1-based): base, 2×base, 4×base … capped. */
export function backoffMs(failures: number, options: Pick<EventProcessingOptions, 'baseBackoffMs' | 'maxBackoffMs'>): number {
  return Math.min(options.maxBackoffMs, options.baseBackoffMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
}

/** One delivered event's place in its stream: what handler failures are counted against. */
export interface DeliveryKey {
  stream: string;
  sequence: number;
}

/**
 * Records processed events so a redelivered one changes state once (the `processed_events` table), and counts handler
 * failures (the `event_handler_failures` table).
 */
export interface EventLedger {
  /** Runs `work` in one transaction with the record of (consumer, eventId); false, without running it, if recorded. */
  applyOnce(consumer: string, eventId: string, work: (manager: Transaction) => Promise<void>): Promise<boolean>;
  /**
   * Records every one of `eventIds` not recorded yet and runs `work` with those (the fresh ones), all in one
   * transaction: their records and what `work` wrote commit together, or nothing does. Answers the fresh ids.
   */
  applyEachOnce(consumer: string, eventIds: readonly string[], work: (manager: Transaction, fresh: ReadonlySet<string>) => Promise<void>): Promise<ReadonlySet<string>>;
  /**
   * Counts one more handler failure of `delivery` for `consumer` and answers how many it has had. The count is the
   * consumer's, not a process's: every replica, and a process started after a crash, goes on from it.
   */
  countFailure(consumer: string, delivery: DeliveryKey): Promise<number>;
  /** Forgets the failures of `delivery` for `consumer`: it was handled, or dead-lettered. */
  forgetFailures(consumer: string, delivery: DeliveryKey): Promise<void>;
}

/** Copies an event that will not be handled to the dead-letter stream; throws if it could not. */
export interface DeadLetterSink {
  send(consumer: string, msg: JsMsg, reason: string, eventId?: string): Promise<void>;
}

/**
 * What became of one delivery:
 * - `applied`, `duplicate` (already applied), `skipped` (not this consumer's subject, or a replay for another
 *   consumer), `stale` (older than the consumer's cutoff): acknowledged;
 * - `deferred`: younger than the consumer's `handleAfterMs`; handed back to be delivered again once it is old enough;
 * - `retry`: the handler failed on a well-formed event; delivered again after a back-off, counted;
 * - `dependency`: a dependency (database, RPC, Redis) is away; delivered again after a back-off, never counted, and
 *   the runner stops pulling until it is back;
 * - `dead-lettered`: malformed, or failed `deadLetterAfter` times; copied to the dead-letter stream, terminated.
 */
export type DeliveryOutcome = 'applied' | 'duplicate' | 'skipped' | 'stale' | 'deferred' | 'retry' | 'dependency' | 'dead-lettered';

class PoisonEventError extends Error {}

/** A delivery for the handler: its event, decoded and checked, and its key in the handler failure counts. */
interface PreparedDelivery {
  msg: JsMsg;
  event: DomainEvent;
  key: DeliveryKey;
}

/**
 * Decides what to do with each delivered event. Kept apart from pulling (EventConsumerRunner) so every decision
 * is tested with fake messages. Handler failures are counted here, per stream sequence, in the ledger (so every
 * replica of a consumer, and a process started after a crash, counts on from the same figure), because JetStream's
 * delivery count also counts deliveries that failed for a dependency, which must never lead to dead-lettering.
 */
export class EventProcessor {
  private readonly logger = new Logger('EventConsumer');

  constructor(
    private readonly ledger: EventLedger,
    private readonly deadLetters: DeadLetterSink,
    private readonly options: EventProcessingOptions,
    private readonly unprefix: (wireSubject: string) => string = (subject) => subject,
    private readonly now: () => number = Date.now,
  ) {}

  /** Handles one delivery and settles it (ack, nak with delay, or term); never throws. */
  async process(consumer: EventConsumer, msg: JsMsg, dependencyFailures = 0): Promise<DeliveryOutcome> {
    const delivery = await this.prepare(consumer, msg);
    return this.count(consumer, 'outcome' in delivery ? delivery.outcome : await this.settle(consumer, delivery, dependencyFailures));
  }

  /**
   * Handles the deliveries of a ledger consumer in one transaction (one ledger statement for all of them, one BEGIN
   * and one COMMIT) and settles each; never throws. Answers the outcome of each delivery it settled: first those that
   * needed no handler (not this consumer's, malformed, stale, not yet due), then the handled ones in the order they came.
   * - The events are handled one after another, each in its own context (correlation id, span), as `process` would.
   * - A dependency failure naks them all with the back-off. A handler failure rolls the transaction back, and each
   *   event is then handled again on its own (`process`), so only the failing one is retried or dead-lettered. From
   *   a dependency failure there on, the rest are handed back (nak) unhandled and not in the answer, as the runner
   *   does with the rest of a batch.
   */
  async processEach(consumer: LedgerConsumer, msgs: readonly JsMsg[], dependencyFailures = 0): Promise<DeliveryOutcome[]> {
    const outcomes: DeliveryOutcome[] = [];
    const toApply: PreparedDelivery[] = [];
    for (const msg of msgs) {
      const delivery = await this.prepare(consumer, msg);
      if ('outcome' in delivery) outcomes.push(this.count(consumer, delivery.outcome));
      else toApply.push(delivery);
    }
    if (toApply.length <= 1) {
      for (const delivery of toApply) outcomes.push(this.count(consumer, await this.settle(consumer, delivery, dependencyFailures)));
      return outcomes;
    }
    // An event delivered twice in one batch (a replay beside the original) is handled once: the later is a duplicate.
    const firstOfEach = new Map<string, PreparedDelivery>();
    for (const delivery of toApply) if (!firstOfEach.has(delivery.event.id)) firstOfEach.set(delivery.event.id, delivery);
    let fresh: ReadonlySet<string>;
    try {
      fresh = await this.ledger.applyEachOnce(consumer.durableName, [...firstOfEach.keys()], async (transaction, freshIds) => {
        for (const { event, msg } of firstOfEach.values()) {
          if (freshIds.has(event.id)) await this.inContext(consumer, event, msg, () => consumer.handle(event, transaction));
        }
      });
    } catch (error) {
      if (isTransientFailure(error)) {
        const delay = backoffMs(dependencyFailures + 1, this.options);
        this.logger.warn(`${consumer.durableName}: ${toApply.length} events wait for a dependency (next try in ${delay} ms): ${(scrubQueryError(error) as Error).message}`);
        for (const { msg } of toApply) {
          msg.nak(delay);
          outcomes.push(this.count(consumer, 'dependency'));
        }
        return outcomes;
      }
      // Rolled back: each on its own, so that the failure is counted against its own event only.
      for (let index = 0; index < toApply.length; index += 1) {
        const outcome = this.count(consumer, await this.settle(consumer, toApply[index], dependencyFailures));
        outcomes.push(outcome);
        if (outcome === 'dependency') {
          for (const { msg } of toApply.slice(index + 1)) msg.nak();
          break;
        }
      }
      return outcomes;
    }
    for (const delivery of toApply) {
      delivery.msg.ack();
      await this.forgetFailures(consumer, delivery);
      const applied = fresh.has(delivery.event.id) && firstOfEach.get(delivery.event.id) === delivery;
      outcomes.push(this.count(consumer, applied ? 'applied' : 'duplicate'));
    }
    return outcomes;
  }

  private count(consumer: EventConsumer, outcome: DeliveryOutcome): DeliveryOutcome {
    consumerMetrics.handled.inc({ consumer: consumer.durableName, outcome });
    return outcome;
  }

  /** What needs no handler (not this consumer's, malformed, stale, not yet due) is settled here; the rest is decoded for it. */
  private async prepare(consumer: EventConsumer, msg: JsMsg): Promise<PreparedDelivery | { outcome: DeliveryOutcome }> {
    const replayFor = msg.headers?.get(REPLAY_FOR_HEADER);
    const subject = this.unprefix(msg.subject);
    // A filter wider than the consumer's subjects (NATS 2.9 has one filter per consumer), or another consumer's replay.
    if (!(consumer.subjects as readonly string[]).includes(subject) || (replayFor && replayFor !== consumer.durableName)) {
      msg.ack();
      return { outcome: 'skipped' };
    }
    let event: DomainEvent;
    try {
      event = decodeEvent(msg);
    } catch (error) {
      return { outcome: await this.deadLetter(consumer, msg, (error as Error).message) };
    }
    // A replay was asked for by an operator after a fix: handle it however old it is.
    if (consumer.startFrom === 'new' && !replayFor && this.now() - Date.parse(event.occurredAt) > (consumer.staleAfterMs ?? Infinity)) {
      msg.ack();
      return { outcome: 'stale' };
    }
    const wait = consumer.handleAfterMs === undefined ? 0 : Date.parse(event.occurredAt) + consumer.handleAfterMs - this.now();
    if (wait > 0) {
      // Delivered again when it is due (a clock a little off only moves that by as much); not a failure.
      msg.nak(Math.ceil(wait));
      return { outcome: 'deferred' };
    }
    return { msg, event, key: { stream: msg.info.stream, sequence: msg.info.streamSequence } };
  }

  private async settle(consumer: EventConsumer, delivery: PreparedDelivery, dependencyFailures: number): Promise<DeliveryOutcome> {
    const { msg, event, key } = delivery;
    try {
      const applied = await this.inContext(consumer, event, msg, () => this.apply(consumer, event));
      msg.ack();
      await this.forgetFailures(consumer, delivery);
      return applied ? 'applied' : 'duplicate';
    } catch (error) {
      const message = (error as Error).message;
      if (isTransientFailure(error)) return this.waitForDependency(consumer, delivery, dependencyFailures, message);
      let failures: number;
      try {
        failures = await this.ledger.countFailure(consumer.durableName, key);
      } catch (countError) {
        // Not counted: the database is away too. The event waits for it, uncounted, as for any dependency.
        return this.waitForDependency(consumer, delivery, dependencyFailures, `${message}; its failure not counted: ${(scrubQueryError(countError) as Error).message}`);
      }
      if (failures >= this.options.deadLetterAfter) {
        const outcome = await this.deadLetter(consumer, msg, `failed ${failures} times: ${message}`, event.id);
        if (outcome === 'dead-lettered') await this.forgetFailures(consumer, delivery, { counted: true });
        return outcome;
      }
      const delay = backoffMs(failures, this.options);
      this.logger.warn(`${consumer.durableName}: ${event.subject} ${event.id} failed (${failures} of ${this.options.deadLetterAfter}; next try in ${delay} ms): ${message}`);
      msg.nak(delay);
      return 'retry';
    }
  }

  private waitForDependency(consumer: EventConsumer, { msg, event }: PreparedDelivery, dependencyFailures: number, message: string): DeliveryOutcome {
    const delay = backoffMs(dependencyFailures + 1, this.options);
    this.logger.warn(`${consumer.durableName}: ${event.subject} ${event.id} waits for a dependency (next try in ${delay} ms): ${message}`);
    msg.nak(delay);
    return 'dependency';
  }

  /**
   * Forgets a settled delivery's failures. Only a delivery after the first can have any (each failure hands the event
   * back to be delivered again), so a first delivery, almost every one, costs no statement. A count that could not be
   * forgotten is left to the ledger's purge: it is only ever read when that delivery fails again. `counted`: this
   * delivery's failure was just counted (its first delivery may be the one that dead-letters it, at a threshold of 1).
   */
  private async forgetFailures(consumer: EventConsumer, { msg, key }: PreparedDelivery, { counted } = { counted: false }): Promise<void> {
    if (!counted && msg.info.deliveryCount <= 1) return;
    await this.ledger.forgetFailures(consumer.durableName, key).catch((error: unknown) => {
      this.logger.warn(`${consumer.durableName}: the failures of #${key.sequence} could not be forgotten (purged later): ${(scrubQueryError(error) as Error).message}`);
    });
  }

  private apply(consumer: EventConsumer, event: DomainEvent): Promise<boolean> {
    const applied =
      consumer.idempotency === 'handler'
        ? consumer.handle(event).then(() => true)
        : this.ledger.applyOnce(consumer.durableName, event.id, (transaction) => consumer.handle(event, transaction));
    // What is logged or dead-lettered of a failure must not carry a failed query's parameters.
    return applied.catch((error: unknown) => {
      throw scrubQueryError(error);
    });
  }

  private inContext<T>(consumer: EventConsumer, event: DomainEvent, msg: JsMsg, work: () => Promise<T>): Promise<T> {
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': event.subject, 'messaging.message.id': event.id };
    return context.with(extractTraceContext(msg.headers), () =>
      requestContext.run({ correlationId: event.correlationId, causationId: event.id, work: consumer.durableName }, () =>
        withSpan(`${consumer.durableName} ${event.subject}`, SpanKind.CONSUMER, attributes, work),
      ),
    );
  }

  private async deadLetter(consumer: EventConsumer, msg: JsMsg, reason: string, eventId?: string): Promise<DeliveryOutcome> {
    try {
      await this.deadLetters.send(consumer.durableName, msg, reason, eventId);
      this.logger.error(`${consumer.durableName}: event #${msg.info.streamSequence} on ${this.unprefix(msg.subject)} dead-lettered: ${reason}`);
      // Without a reason: NATS before 2.10 (this machine's 2.9) does not know `+TERM <reason>`, ignores it and
      // delivers the event again after every ack wait. The reason travels in the dead letter's headers instead.
      msg.term();
      return 'dead-lettered';
    } catch (error) {
      // Not copied: keep it in the stream for another try rather than lose it.
      this.logger.warn(`${consumer.durableName}: dead-lettering #${msg.info.streamSequence} failed: ${(error as Error).message}`);
      msg.nak(backoffMs(msg.info.deliveryCount, this.options));
      return 'dependency';
    }
  }
}

/**
 * A failure of something the handler depends on, not of the handler: the database or Redis is away or overloaded,
 * or a service it calls did not answer or answered 503/504. Retried without end; never a reason to dead-letter.
 */
export function isTransientFailure(error: unknown): boolean {
  // Contention, not a bad event: a lock wait that timed out, a deadlock victim, a serialization conflict.
  if (isTransientConflict(error)) return true;
  if (error instanceof RpcError) return error.body.status === 503 || error.body.status === 504;
  return isDependencyUnavailable(error);
}

/** Parses and checks an event against the envelope and its subject's contract; throws PoisonEventError if it is not one. */
export function decodeEvent(msg: Pick<JsMsg, 'json'>): DomainEvent {
  let raw: unknown;
  try {
    raw = msg.json();
  } catch {
    throw new PoisonEventError('not JSON');
  }
  const envelope = eventEnvelopeSchema.safeParse(raw);
  if (!envelope.success) throw new PoisonEventError(`bad envelope: ${envelope.error.issues[0]?.path.join('.')} ${envelope.error.issues[0]?.message}`);
  const subject = envelope.data.subject;
  if (!isEventSubject(subject)) throw new PoisonEventError(`unknown subject ${subject}`);
  const data = EventMap[subject as EventSubject].data.safeParse(envelope.data.data);
  if (!data.success) throw new PoisonEventError(`bad ${subject} payload: ${data.error.issues[0]?.message}`);
  return { ...envelope.data, subject, data: data.data } as DomainEvent;
}
