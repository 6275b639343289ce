import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Transaction } from '../database/database';
import type { DomainEvent } from '@homing/contracts';
import type { HandlerConsumer, LedgerConsumer } from './event-consumer';
import { backoffMs, EventProcessor, REPLAY_FOR_HEADER, type DeadLetterSink, type DeliveryKey, type EventLedger } from './event-processor';

type Created = 'items.item.created.v1';

/** A processed_events ledger with transaction semantics: what `work` wrote counts only if it did not throw. */
class FakeLedger implements EventLedger {
  readonly processed = new Set<string>();
  readonly rows: string[] = [];

  async applyOnce(consumer: string, eventId: string, work: (manager: Transaction) => Promise<void>): Promise<boolean> {
    const key = `${consumer}/${eventId}`;
    if (this.processed.has(key)) return false;
    const written: string[] = [];
    await work({ query: async (sql: string) => void written.push(sql) } as unknown as Transaction);
    this.processed.add(key);
    this.rows.push(...written);
    return true;
  }

  /** Transactions of several events (`applyEachOnce`), each with the ids it was given. */
  readonly groups: string[][] = [];

  async applyEachOnce(consumer: string, eventIds: readonly string[], work: (manager: Transaction, fresh: ReadonlySet<string>) => Promise<void>): Promise<ReadonlySet<string>> {
    this.groups.push([...eventIds]);
    const fresh = new Set(eventIds.filter((id) => !this.processed.has(`${consumer}/${id}`)));
    const written: string[] = [];
    if (fresh.size > 0) await work({ query: async (sql: string) => void written.push(sql) } as unknown as Transaction, fresh);
    for (const id of fresh) this.processed.add(`${consumer}/${id}`);
    this.rows.push(...written);
    return fresh;
  }

  /** Handler failures by consumer and delivery, as the database keeps them for every replica; `countFailure` throws while `away`. */
  readonly failures = new Map<string, number>();
  readonly forgotten: number[] = [];
  away = false;

  async countFailure(consumer: string, { stream, sequence }: DeliveryKey): Promise<number> {
    if (this.away) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const key = `${consumer}/${stream}/${sequence}`;
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    return failures;
  }

  async forgetFailures(consumer: string, { stream, sequence }: DeliveryKey): Promise<void> {
    this.forgotten.push(sequence);
    this.failures.delete(`${consumer}/${stream}/${sequence}`);
  }
}

class FakeDeadLetters implements DeadLetterSink {
  readonly sent: Array<{ consumer: string; seq: number; reason: string }> = [];
  async send(consumer: string, msg: JsMsg, reason: string): Promise<void> {
    this.sent.push({ consumer, seq: msg.info.streamSequence, reason });
  }
}

interface FakeMsg extends JsMsg {
  settled: Array<{ how: 'ack' | 'nak' | 'term'; delay?: number }>;
}

function eventOf(overrides: Partial<DomainEvent<Created>> = {}): DomainEvent<Created> {
  const code = 'ABCDEFGHJKMNPQRS';
  return {
    id: randomUUID(),
    subject: 'items.item.created.v1',
    occurredAt: new Date().toISOString(),
    correlationId: 'test',
    causationId: null,
    producer: 'items',
    aggregateId: code,
    version: 1,
    data: { code, ownerUserId: randomUUID(), claimedAt: new Date().toISOString() },
    ...overrides,
  };
}

let sequence = 0;
/** One delivery of a stream message; `redeliver` makes the next delivery of the same message. */
function deliveryOf(body: unknown, options: { subject?: string; seq?: number; delivery?: number; replayFor?: string } = {}): FakeMsg {
  const seq = options.seq ?? (sequence += 1);
  const headers = natsHeaders();
  if (options.replayFor) headers.set(REPLAY_FOR_HEADER, options.replayFor);
  const data = new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body));
  const settled: FakeMsg['settled'] = [];
  return {
    subject: options.subject ?? 'items.item.created.v1',
    headers,
    data,
    seq,
    info: { stream: 'HOMING_EVENTS', streamSequence: seq, deliveryCount: options.delivery ?? 1 },
    json: () => JSON.parse(new TextDecoder().decode(data)),
    ack: () => void settled.push({ how: 'ack' }),
    nak: (delay?: number) => void settled.push({ how: 'nak', delay }),
    term: () => void settled.push({ how: 'term' }),
    settled,
  } as unknown as FakeMsg;
}

function ledgerConsumer(handle: LedgerConsumer<Created>['handle']): LedgerConsumer<Created> {
  return { durableName: 'test__projection', subjects: ['items.item.created.v1'], startFrom: 'all', idempotency: 'ledger', handle };
}

const options = { deadLetterAfter: 3, baseBackoffMs: 1000, maxBackoffMs: 60_000 };

describe('EventProcessor', () => {
  beforeAll(() => Logger.overrideLogger(false));

  let ledger: FakeLedger;
  let deadLetters: FakeDeadLetters;
  let processor: EventProcessor;

  beforeEach(() => {
    ledger = new FakeLedger();
    deadLetters = new FakeDeadLetters();
    processor = new EventProcessor(ledger, deadLetters, options);
  });

  it('applies an event once, however often it is delivered', async () => {
    const consumer = ledgerConsumer(async (_event, manager) => void (await manager.query('UPDATE projection')));
    const event = eventOf();
    expect(await processor.process(consumer, deliveryOf(event, { seq: 1 }))).toBe('applied');
    const again = deliveryOf(event, { seq: 1, delivery: 2 });
    expect(await processor.process(consumer, again)).toBe('duplicate');
    expect(again.settled).toEqual([{ how: 'ack' }]);
    expect(ledger.rows).toEqual(['UPDATE projection']);
  });

  it('rolls back a failing handler, with no ledger row, and applies the event when it is delivered again', async () => {
    let calls = 0;
    const consumer = ledgerConsumer(async (_event, manager) => {
      calls += 1;
      await manager.query(`UPDATE projection ${calls}`);
      if (calls === 1) throw new Error('a bug on the first try');
    });
    const event = eventOf();
    const first = deliveryOf(event, { seq: 7 });
    expect(await processor.process(consumer, first)).toBe('retry');
    expect(first.settled).toEqual([{ how: 'nak', delay: 1000 }]);
    expect(ledger.processed.size).toBe(0);
    expect(ledger.rows).toEqual([]);

    expect(await processor.process(consumer, deliveryOf(event, { seq: 7, delivery: 2 }))).toBe('applied');
    expect(ledger.rows).toEqual(['UPDATE projection 2']);
    expect(deadLetters.sent).toEqual([]);
  });

  it('never dead-letters an event whose database is away, however many deliveries it takes', async () => {
    const consumer = ledgerConsumer(async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    const event = eventOf();
    const delays: Array<number | undefined> = [];
    for (let delivery = 1; delivery <= 20; delivery += 1) {
      const msg = deliveryOf(event, { seq: 9, delivery });
      expect(await processor.process(consumer, msg, delivery - 1)).toBe('dependency');
      delays.push(msg.settled[0]?.delay);
    }
    expect(deadLetters.sent).toEqual([]);
    // Back-off doubles from a second and is capped at a minute.
    expect(delays.slice(0, 4)).toEqual([1000, 2000, 4000, 8000]);
    expect(delays.at(-1)).toBe(60_000);
  });

  it('counts a statement timeout (a locked table) as a dependency failure, not a handler error', async () => {
    const consumer = ledgerConsumer(async () => {
      throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    });
    for (let delivery = 1; delivery <= 5; delivery += 1) {
      expect(await processor.process(consumer, deliveryOf(eventOf(), { seq: 11, delivery }))).toBe('dependency');
    }
    expect(deadLetters.sent).toEqual([]);
  });

  it('dead-letters an event whose handler keeps failing, once, after the configured number of handler errors', async () => {
    const consumer = ledgerConsumer(async () => {
      throw new Error('cannot apply this event');
    });
    const event = eventOf();
    const outcomes = [];
    // Dependency failures in between do not count towards the threshold.
    const flaky = ledgerConsumer(async () => {
      throw Object.assign(new Error('Connection terminated unexpectedly'), {});
    });
    outcomes.push(await processor.process(flaky, deliveryOf(event, { seq: 12, delivery: 1 })));
    for (let delivery = 2; delivery <= 4; delivery += 1) outcomes.push(await processor.process(consumer, deliveryOf(event, { seq: 12, delivery })));
    expect(outcomes).toEqual(['dependency', 'retry', 'retry', 'dead-lettered']);
    expect(deadLetters.sent).toEqual([{ consumer: 'test__projection', seq: 12, reason: 'failed 3 times: cannot apply this event' }]);
  });

  it('counts handler failures in the ledger, so the threshold holds across replicas and restarts', async () => {
    const consumer = ledgerConsumer(async () => {
      throw new Error('cannot apply this event');
    });
    const event = eventOf();
    // Three processes with one ledger: two replicas, then one started after the others stopped.
    const replicas = [processor, new EventProcessor(ledger, deadLetters, options), new EventProcessor(ledger, deadLetters, options)];
    const outcomes = [];
    for (let delivery = 1; delivery <= 3; delivery += 1) outcomes.push(await replicas[delivery - 1].process(consumer, deliveryOf(event, { seq: 13, delivery })));
    expect(outcomes).toEqual(['retry', 'retry', 'dead-lettered']);
    expect(deadLetters.sent).toEqual([{ consumer: 'test__projection', seq: 13, reason: 'failed 3 times: cannot apply this event' }]);
    // Dead-lettered: its count is forgotten with it.
    expect(ledger.failures.size).toBe(0);
  });

  it('forgets a delivery’s failures once it is handled, and asks nothing of the ledger for a first delivery', async () => {
    let fail = true;
    const consumer = ledgerConsumer(async () => {
      if (fail) throw new Error('a bug, fixed meanwhile');
    });
    const event = eventOf();
    expect(await processor.process(consumer, deliveryOf(event, { seq: 14, delivery: 1 }))).toBe('retry');
    fail = false;
    expect(await processor.process(consumer, deliveryOf(event, { seq: 14, delivery: 2 }))).toBe('applied');
    expect(await processor.process(consumer, deliveryOf(eventOf(), { seq: 15, delivery: 1 }))).toBe('applied');
    expect(ledger.forgotten).toEqual([14]);
    expect(ledger.failures.size).toBe(0);
  });

  it('waits, uncounted, when the failure cannot be counted because the database is away too', async () => {
    const consumer = ledgerConsumer(async () => {
      throw new Error('cannot apply this event');
    });
    ledger.away = true;
    const msg = deliveryOf(eventOf(), { seq: 16, delivery: 1 });
    expect(await processor.process(consumer, msg, 2)).toBe('dependency');
    expect(msg.settled).toEqual([{ how: 'nak', delay: 4000 }]);
    expect(deadLetters.sent).toEqual([]);
  });

  it('dead-letters a malformed event at once and terminates it', async () => {
    const consumer = ledgerConsumer(async () => undefined);
    const notJson = deliveryOf('not json');
    const badPayload = deliveryOf({ ...eventOf(), data: { code: 'X' } });
    const noVersion = deliveryOf({ ...eventOf(), version: undefined });
    expect(await processor.process(consumer, notJson)).toBe('dead-lettered');
    expect(await processor.process(consumer, badPayload)).toBe('dead-lettered');
    expect(await processor.process(consumer, noVersion)).toBe('dead-lettered');
    expect(notJson.settled).toEqual([{ how: 'term' }]);
    expect(deadLetters.sent.map(({ reason }) => reason)).toEqual([
      'not JSON',
      expect.stringContaining('bad items.item.created.v1 payload'),
      expect.stringContaining('bad envelope: version'),
    ]);
    expect(ledger.processed.size).toBe(0);
  });

  it('keeps an event it could not dead-letter, for another try', async () => {
    const failingSink: DeadLetterSink = { send: () => Promise.reject(new Error('NATS is away')) };
    const msg = deliveryOf('not json', { delivery: 2 });
    expect(await new EventProcessor(ledger, failingSink, options).process(ledgerConsumer(async () => undefined), msg)).toBe('dependency');
    expect(msg.settled).toEqual([{ how: 'nak', delay: 2000 }]);
  });

  it('skips events of other subjects under a wide filter, and replays meant for another consumer', async () => {
    const handled: string[] = [];
    const consumer = ledgerConsumer(async (event) => void handled.push(event.id));
    const other = deliveryOf(eventOf(), { subject: 'items.item.renamed.v1' });
    const replayForOther = deliveryOf(eventOf(), { replayFor: 'notifications__owner-mail' });
    expect(await processor.process(consumer, other)).toBe('skipped');
    expect(await processor.process(consumer, replayForOther)).toBe('skipped');
    expect(other.settled).toEqual([{ how: 'ack' }]);
    expect(handled).toEqual([]);
  });

  it('lets a side-effect consumer skip stale events, except a replay meant for it', async () => {
    const sent: string[] = [];
    const consumer: HandlerConsumer<Created> = {
      durableName: 'test__mail',
      subjects: ['items.item.created.v1'],
      startFrom: 'new',
      staleAfterMs: 60 * 60 * 1000,
      idempotency: 'handler',
      handle: async (event) => void sent.push(event.id),
    };
    const weekOld = eventOf({ occurredAt: new Date(Date.now() - 7 * 24 * 60 * 60 * 1000).toISOString() });
    const fresh = eventOf();
    expect(await processor.process(consumer, deliveryOf(weekOld))).toBe('stale');
    expect(await processor.process(consumer, deliveryOf(fresh))).toBe('applied');
    expect(await processor.process(consumer, deliveryOf(weekOld, { replayFor: 'test__mail' }))).toBe('applied');
    expect(sent).toEqual([fresh.id, weekOld.id]);
    // No ledger for a handler-idempotent consumer: it de-duplicates itself (deterministic job ids).
    expect(ledger.processed.size).toBe(0);
  });

  it('hands an event back until it is as old as the consumer waits (handleAfterMs), then handles it once', async () => {
    let now = Date.parse('2026-12-02T06:00:00Z');
    const clocked = new EventProcessor(ledger, deadLetters, options, undefined, () => now);
    const handled: string[] = [];
    const secondPass: LedgerConsumer<Created> = { ...ledgerConsumer(async (event) => void handled.push(event.id)), handleAfterMs: 300_000 };
    const event = eventOf({ occurredAt: new Date(now - 1000).toISOString() });

    const early = deliveryOf(event, { seq: 40 });
    expect(await clocked.process(secondPass, early)).toBe('deferred');
    // Delivered again when due, neither counted as a failure nor recorded in the ledger.
    expect(early.settled).toEqual([{ how: 'nak', delay: 299_000 }]);
    now += 120_000;
    const stillEarly = deliveryOf(event, { seq: 40, delivery: 2 });
    expect(await clocked.processEach(secondPass, [stillEarly])).toEqual(['deferred']);
    expect(stillEarly.settled).toEqual([{ how: 'nak', delay: 179_000 }]);
    expect(handled).toEqual([]);
    expect(ledger.processed.size).toBe(0);

    now += 179_000;
    expect(await clocked.process(secondPass, deliveryOf(event, { seq: 40, delivery: 3 }))).toBe('applied');
    expect(await clocked.process(secondPass, deliveryOf(event, { seq: 40, delivery: 4 }))).toBe('duplicate');
    expect(handled).toEqual([event.id]);
    // An event already old enough when first delivered (a new consumer reading the stream's past) is handled at once.
    const old = eventOf({ occurredAt: new Date(now - 3_600_000).toISOString() });
    expect(await clocked.process(secondPass, deliveryOf(old))).toBe('applied');
    expect(deadLetters.sent).toEqual([]);
  });

  describe('processEach (the deliveries of a ledger consumer in one transaction)', () => {
    const updating = () => ledgerConsumer(async (event, manager) => void (await manager.query(`UPDATE projection ${event.data.ownerUserId}`)));

    it('applies the events in one transaction, in order, and acknowledges each', async () => {
      const events = [eventOf(), eventOf(), eventOf()];
      const msgs = events.map((event) => deliveryOf(event));
      expect(await processor.processEach(updating(), msgs)).toEqual(['applied', 'applied', 'applied']);
      expect(ledger.groups).toEqual([events.map((event) => event.id)]);
      expect(ledger.rows).toEqual(events.map((event) => `UPDATE projection ${event.data.ownerUserId}`));
      expect(msgs.map((msg) => msg.settled)).toEqual([[{ how: 'ack' }], [{ how: 'ack' }], [{ how: 'ack' }]]);
    });

    it('handles an event recorded already, or delivered twice in the batch, as a duplicate', async () => {
      const [done, fresh] = [eventOf(), eventOf()];
      expect(await processor.process(updating(), deliveryOf(done))).toBe('applied');
      const outcomes = await processor.processEach(updating(), [deliveryOf(done), deliveryOf(fresh), deliveryOf(fresh, { replayFor: 'test__projection' })]);
      expect(outcomes).toEqual(['duplicate', 'applied', 'duplicate']);
      expect(ledger.groups).toEqual([[done.id, fresh.id]]);
      expect(ledger.rows).toEqual([done, fresh].map((event) => `UPDATE projection ${event.data.ownerUserId}`));
    });

    it('rolls back a failing event with the rest, then handles each on its own: only the failing one is retried', async () => {
      const [good, bad, later] = [eventOf(), eventOf(), eventOf()];
      const consumer = ledgerConsumer(async (event, manager) => {
        await manager.query(`UPDATE projection ${event.id}`);
        if (event.id === bad.id) throw new Error('cannot apply this event');
      });
      const msgs = [good, bad, later].map((event) => deliveryOf(event));
      expect(await processor.processEach(consumer, msgs)).toEqual(['applied', 'retry', 'applied']);
      expect(ledger.processed).toEqual(new Set([`test__projection/${good.id}`, `test__projection/${later.id}`]));
      // Nothing of the rolled-back transaction was kept: each row is the individual run's.
      expect(ledger.rows).toEqual([`UPDATE projection ${good.id}`, `UPDATE projection ${later.id}`]);
      expect(msgs[1].settled).toEqual([{ how: 'nak', delay: 1000 }]);
      expect(deadLetters.sent).toEqual([]);
    });

    it('hands every event back with the back-off when a dependency is away, recording none', async () => {
      const consumer = ledgerConsumer(async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      });
      const msgs = [deliveryOf(eventOf()), deliveryOf(eventOf())];
      expect(await processor.processEach(consumer, msgs, 2)).toEqual(['dependency', 'dependency']);
      expect(msgs.map((msg) => msg.settled)).toEqual([[{ how: 'nak', delay: 4000 }], [{ how: 'nak', delay: 4000 }]]);
      expect(ledger.processed.size).toBe(0);
    });

    it('stops at a dependency failure met while handling each on its own, and hands the rest back unhandled', async () => {
      const [bad, away, rest] = [eventOf(), eventOf(), eventOf()];
      const consumer = ledgerConsumer(async (event) => {
        if (event.id === bad.id) throw new Error('cannot apply this event');
        if (event.id === away.id) throw Object.assign(new Error('Connection terminated unexpectedly'), {});
      });
      const msgs = [bad, away, rest].map((event) => deliveryOf(event));
      // The group fails on the first event's handler error, so each goes on its own: the second finds the database away.
      expect(await processor.processEach(consumer, msgs)).toEqual(['retry', 'dependency']);
      expect(msgs[2].settled).toEqual([{ how: 'nak', delay: undefined }]);
      expect(ledger.processed.size).toBe(0);
    });

    it('settles what needs no handler at once and applies a lone event as process does', async () => {
      const handled: string[] = [];
      const consumer = ledgerConsumer(async (event) => void handled.push(event.id));
      const event = eventOf();
      const outcomes = await processor.processEach(consumer, [deliveryOf('not json'), deliveryOf(eventOf(), { subject: 'items.item.renamed.v1' }), deliveryOf(event)]);
      expect(outcomes).toEqual(['dead-lettered', 'skipped', 'applied']);
      expect(handled).toEqual([event.id]);
      // A single event takes the one-event transaction, not the group's.
      expect(ledger.groups).toEqual([]);
    });
  });
});

describe('backoffMs', () => {
  it('doubles from the base and caps', () => {
    const settings = { baseBackoffMs: 1000, maxBackoffMs: 60_000 };
    expect([1, 2, 3, 4].map((failures) => backoffMs(failures, settings))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(10, settings)).toBe(60_000);
    expect(backoffMs(1000, settings)).toBe(60_000);
  });
});
