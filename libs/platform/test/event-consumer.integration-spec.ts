import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';

import { STREAMS, type DomainEvent } from '@homing/contracts';
import { deleteNamespaceStreams, dropSchemas, ensureDatabase, expectEventually, isolatedName, testInfra } from '@homing/testing';
import {
  applyIfNewer,
  dataSourceOptions,
  EVENT_CONSUMER_OPTIONS,
  eventConsumerProviders,
  JetStreamStreams,
  migrateSchema,
  NatsClient,
  PlatformModule,
  replayDeadLetters,
  type DatabaseOptions,
  type EventConsumerOptions,
  type HandlerConsumer,
  type LedgerConsumer,
  type Transaction,
} from '../src';
import { testConfig } from './test-config';

type ItemEvents = 'items.item.created.v1' | 'items.item.deleted.v1';

// The consumer runner against real PostgreSQL and JetStream: outages longer than the dead-letter threshold, shutdown
// with events pulled, several subjects on one filter (NATS 2.9), start positions and dead-letter replay.
describe('event consumers', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const database: DatabaseOptions = { url: infra.databaseUrl, schema: `consumers_${namespace}`, applicationName: 'consumer-test', migrations: [] };
  const eventsStream = `${namespace.toUpperCase()}_${STREAMS.events.name}`;
  const deadLetterStream = `${namespace.toUpperCase()}_${STREAMS.deadLetters.name}`;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let db: Client;
  const modules: TestingModule[] = [];

  // Scaled down so a test outlives the dead-letter threshold in seconds, not minutes.
  const fast: Partial<EventConsumerOptions> = { deadLetterAfter: 2, baseBackoffMs: 300, maxBackoffMs: 600, pullExpiresMs: 1000 };

  async function start(consumers: Array<Type<LedgerConsumer | HandlerConsumer>>, options: Partial<EventConsumerOptions> = fast): Promise<TestingModule> {
    const moduleRef = await Test.createTestingModule({
      imports: [PlatformModule.forService({ service: 'consumer-test', config: testConfig(infra.natsUrl, namespace), database })],
      providers: [...eventConsumerProviders(...consumers), { provide: EVENT_CONSUMER_OPTIONS, useValue: options }],
    }).compile();
    moduleRef.useLogger(false);
    await moduleRef.get(NatsClient).connect();
    await moduleRef.get(JetStreamStreams).ensure();
    await moduleRef.init();
    modules.push(moduleRef);
    return moduleRef;
  }

  let version = 0;
  function eventOf<S extends ItemEvents | 'items.item.claimed.v1'>(subject: S, data: DomainEvent<S>['data'], overrides: { version?: number; occurredAt?: string } = {}): DomainEvent<S> {
    return {
      id: randomUUID(),
      subject,
      occurredAt: overrides.occurredAt ?? new Date().toISOString(),
      correlationId: 'consumer-test',
      causationId: null,
      producer: 'items',
      aggregateId: data.code,
      version: overrides.version ?? (version += 1),
      data,
    } as DomainEvent<S>;
  }
  const publish = (event: DomainEvent) => js.publish(`${namespace}.${event.subject}`, JSON.stringify(event), { msgID: event.id });
  const created = (code: string = randomUUID(), overrides?: { version?: number; occurredAt?: string }) =>
    eventOf('items.item.created.v1', { code, ownerUserId: randomUUID(), claimedAt: new Date().toISOString() }, overrides);
  const rows = async (table: string) => (await db.query(`SELECT * FROM "${database.schema}"."${table}" ORDER BY item_code`)).rows;
  const deadLettersOf = async (consumer: string) => {
    const info = await jsm.streams.info(deadLetterStream, { subjects_filter: `${namespace}.deadletter.${consumer}` });
    return info.state.subjects?.[`${namespace}.deadletter.${consumer}`] ?? 0;
  };
  const consumerInfo = (name: string) => jsm.consumers.info(eventsStream, name);

  beforeAll(async () => {
    Logger.overrideLogger(false);
    await ensureDatabase(infra.databaseUrl);
    await migrateSchema(dataSourceOptions(database) as Parameters<typeof migrateSchema>[0]);
    db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
    for (const table of ['outage', 'shutdown', 'several', 'replayed']) {
      await db.query(`CREATE TABLE "${database.schema}"."${table}" (item_code text PRIMARY KEY, owner text, deleted boolean NOT NULL DEFAULT false, version integer NOT NULL)`);
    }
    nc = await connect({ servers: infra.natsUrl });
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
  });

  afterEach(async () => {
    await Promise.all(modules.splice(0).map((moduleRef) => moduleRef.close()));
  });

  afterAll(async () => {
    await deleteNamespaceStreams(nc, namespace);
    await nc.drain();
    await db.end();
    await dropSchemas(infra.databaseUrl, [database.schema]);
  });

  it('keeps retrying through a database outage longer than the dead-letter threshold, pausing, and applies every event', async () => {
    const attempts: number[] = [];
    @Injectable()
    class OutageConsumer implements LedgerConsumer<'items.item.created.v1'> {
      readonly durableName = 'test__outage';
      readonly subjects = ['items.item.created.v1'] as const;
      readonly startFrom = 'all';
      readonly idempotency = 'ledger';
      async handle(event: DomainEvent<'items.item.created.v1'>, manager: Transaction) {
        attempts.push(Date.now());
        // While the table is locked, each try fails after 50 ms, like a statement timeout.
        await manager.query("SET LOCAL lock_timeout = '50ms'");
        await applyIfNewer(manager, { table: 'outage', key: { item_code: event.data.code }, version: event.version, values: { owner: event.data.ownerUserId } });
      }
    }
    const lock = new Client({ connectionString: infra.databaseUrl });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query(`LOCK TABLE "${database.schema}".outage IN ACCESS EXCLUSIVE MODE`);

    await start([OutageConsumer]);
    const events = Array.from({ length: 5 }, () => created());
    for (const event of events) await publish(event);
    // Far more failed tries than the dead-letter threshold (2).
    await expectEventually(() => expect(attempts.length).toBeGreaterThanOrEqual(8), { timeoutMs: 20_000 });
    const gaps = attempts.slice(1).map((at, index) => at - attempts[index]);
    await lock.query('COMMIT');
    await lock.end();

    await expectEventually(async () => expect((await rows('outage')).map((row) => row.item_code)).toEqual(events.map((e) => e.data.code).sort()), { timeoutMs: 20_000 });
    expect(await deadLettersOf('test__outage')).toBe(0);
    // Paused after each failure: the buffered events are not tried one after another against a locked table.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(250);
    await expectEventually(async () => expect((await consumerInfo('test__outage')).num_ack_pending).toBe(0));
    // The server never gives up on its own: the client decides.
    expect((await consumerInfo('test__outage')).config.max_deliver).toBe(-1);
  });

  it('leaves the loop at once on shutdown and hands back the events it had pulled', async () => {
    const handled: string[] = [];
    @Injectable()
    class SlowConsumer implements LedgerConsumer<'items.item.created.v1'> {
      readonly durableName = 'test__shutdown';
      readonly subjects = ['items.item.created.v1'] as const;
      readonly startFrom = 'new';
      readonly staleAfterMs = 60_000;
      readonly idempotency = 'ledger';
      async handle(event: DomainEvent<'items.item.created.v1'>, manager: Transaction) {
        handled.push(event.id);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await applyIfNewer(manager, { table: 'shutdown', key: { item_code: event.data.code }, version: event.version, values: { owner: event.data.ownerUserId } });
      }
    }
    const moduleRef = await start([SlowConsumer], { ...fast, batchSize: 5 });
    await expectEventually(async () => expect((await consumerInfo('test__shutdown')).name).toBe('test__shutdown'));
    for (let i = 0; i < 10; i += 1) await publish(created());
    await expectEventually(() => expect(handled.length).toBeGreaterThanOrEqual(1));

    const began = Date.now();
    await moduleRef.close();
    modules.splice(modules.indexOf(moduleRef), 1);
    expect(Date.now() - began).toBeLessThan(2500);
    // The event being handled finished; the others pulled with it were not handled after close.
    expect(handled.length).toBeLessThanOrEqual(2);
    expect((await rows('shutdown')).length).toBe(handled.length);
    // Handed back (nak), not left to the 30 s ack wait: the next replica gets every other event at once.
    const next = await (await js.consumers.get(eventsStream, 'test__shutdown')).fetch({ max_messages: 10, expires: 2000 });
    let redelivered = 0;
    for await (const msg of next) {
      redelivered += 1;
      msg.ack();
    }
    expect(redelivered).toBe(10 - handled.length);
  });

  it('consumes several subjects through one filter subject (NATS 2.9), applying only newer versions', async () => {
    @Injectable()
    class ItemsConsumer implements LedgerConsumer<ItemEvents> {
      readonly durableName = 'test__several';
      readonly subjects = ['items.item.created.v1', 'items.item.deleted.v1'] as const;
      readonly startFrom = 'all';
      readonly idempotency = 'ledger';
      async handle(event: DomainEvent<ItemEvents>, manager: Transaction) {
        const values = event.subject === 'items.item.deleted.v1' ? { deleted: true } : { owner: event.data.ownerUserId, deleted: false };
        await applyIfNewer(manager, { table: 'several', key: { item_code: event.data.code }, version: event.version, values });
      }
    }
    const kept = created('kept', { version: 1 });
    const deleted = eventOf('items.item.deleted.v1', { code: 'gone' }, { version: 3 });
    // Arrives after the deletion, though it happened before it: must not bring the item back.
    const late = created('gone', { version: 2 });
    // In the same stream and under the filter, but not this consumer's subject: skipped.
    const claimed = eventOf('items.item.claimed.v1', { code: 'claimed', ownerUserId: randomUUID(), claimedAt: new Date().toISOString() });
    for (const event of [kept, deleted, late, claimed]) await publish(event);

    await start([ItemsConsumer]);
    await expectEventually(async () => expect((await consumerInfo('test__several')).num_pending).toBe(0));
    await expectEventually(async () => expect((await consumerInfo('test__several')).num_ack_pending).toBe(0));
    expect((await consumerInfo('test__several')).config.filter_subject).toBe(`${namespace}.items.item.>`);
    expect((await rows('several')).filter((row) => ['gone', 'kept'].includes(row.item_code))).toEqual([
      { item_code: 'gone', owner: null, deleted: true, version: 3 },
      { item_code: 'kept', owner: kept.data.ownerUserId, deleted: false, version: 1 },
    ]);
  });

  it('handles a side-effect consumer’s batch side by side and a ledger consumer’s one at a time, those that arrive meanwhile in one transaction, each event once', async () => {
    const transactions = new Set<unknown>();
    const inHand = { handler: 0, ledger: 0 };
    const most = { handler: 0, ledger: 0 };
    const seen = { handler: [] as string[], ledger: [] as string[] };
    const slowly = async (kind: 'handler' | 'ledger', code: string) => {
      inHand[kind] += 1;
      most[kind] = Math.max(most[kind], inHand[kind]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      seen[kind].push(code);
      inHand[kind] -= 1;
    };
    @Injectable()
    class SideEffectConsumer implements HandlerConsumer<'items.item.created.v1'> {
      readonly durableName = 'test__side-by-side';
      readonly subjects = ['items.item.created.v1'] as const;
      readonly startFrom = 'new';
      readonly staleAfterMs = 60_000;
      readonly idempotency = 'handler';
      handle(event: DomainEvent<'items.item.created.v1'>) {
        return slowly('handler', event.data.code);
      }
    }
    @Injectable()
    class OneAtATimeConsumer implements LedgerConsumer<'items.item.created.v1'> {
      readonly durableName = 'test__one-at-a-time';
      readonly subjects = ['items.item.created.v1'] as const;
      readonly startFrom = 'new';
      readonly staleAfterMs = 60_000;
      readonly idempotency = 'ledger';
      handle(event: DomainEvent<'items.item.created.v1'>, transaction: Transaction) {
        transactions.add(transaction);
        return slowly('ledger', event.data.code);
      }
    }
    await start([SideEffectConsumer, OneAtATimeConsumer], { ...fast, batchSize: 5 });
    await expectEventually(async () => expect((await consumerInfo('test__side-by-side')).name).toBe('test__side-by-side'));
    await expectEventually(async () => expect((await consumerInfo('test__one-at-a-time')).name).toBe('test__one-at-a-time'));
    const codes = Array.from({ length: 10 }, (_, index) => `batch-${index}`);
    await Promise.all(codes.map((code) => publish(created(code))));

    await expectEventually(() => expect([...seen.handler].sort()).toEqual([...codes].sort()), { timeoutMs: 20_000 });
    await expectEventually(() => expect([...seen.ledger].sort()).toEqual([...codes].sort()), { timeoutMs: 20_000 });
    expect(most.handler).toBeGreaterThan(1);
    expect(most.handler).toBeLessThanOrEqual(5);
    expect(most.ledger).toBe(1);
    // The first event of the burst is handled alone; those that arrived while it was share transactions.
    expect(transactions.size).toBeGreaterThan(1);
    expect(transactions.size).toBeLessThan(codes.length);
    // A group's records commit after its last handler has run.
    const recorded = async () => (await db.query(`SELECT count(*)::int AS n FROM "${database.schema}".processed_events WHERE consumer = 'test__one-at-a-time'`)).rows[0].n;
    await expectEventually(async () => expect(await recorded()).toBe(codes.length));
    await expectEventually(async () => expect((await consumerInfo('test__side-by-side')).num_ack_pending).toBe(0));
    await expectEventually(async () => expect((await consumerInfo('test__one-at-a-time')).num_ack_pending).toBe(0));
  });

  it('handles each event of a second pass once it is as old as the consumer waits, once, and the events behind it meanwhile', async () => {
    const handled: Array<{ code: string; ageMs: number }> = [];
    @Injectable()
    class SecondPassConsumer implements LedgerConsumer<'items.item.created.v1'> {
      readonly durableName = 'test__second-pass';
      readonly subjects = ['items.item.created.v1'] as const;
      readonly startFrom = 'all';
      readonly idempotency = 'ledger';
      readonly handleAfterMs = 2000;
      async handle(event: DomainEvent<'items.item.created.v1'>) {
        // From the stream's first event: the earlier tests' events are in it too.
        if (event.data.code.startsWith('second-pass')) handled.push({ code: event.data.code, ageMs: Date.now() - Date.parse(event.occurredAt) });
      }
    }
    await start([SecondPassConsumer]);
    await expectEventually(async () => expect((await consumerInfo('test__second-pass')).name).toBe('test__second-pass'));
    // One just now, then one from long ago (already due): the old one is not held up behind the new one.
    const recent = created('second-pass-recent');
    const past = created('second-pass-past', { occurredAt: new Date(Date.now() - 60_000).toISOString() });
    await publish(recent);
    await publish(past);

    await expectEventually(() => expect(handled.map(({ code }) => code)).toEqual(['second-pass-past']), { timeoutMs: 1500 });
    await expectEventually(() => expect(handled.map(({ code }) => code)).toEqual(['second-pass-past', 'second-pass-recent']), { timeoutMs: 10_000 });
    expect(handled[1].ageMs).toBeGreaterThanOrEqual(2000);
    await expectEventually(async () => expect((await consumerInfo('test__second-pass')).num_ack_pending).toBe(0));
    // Delivered more than once while it waited, handled once.
    expect(handled).toHaveLength(2);
  });

  it('starts a side-effect consumer at new events, and replays its dead letters to it alone after a fix', async () => {
    let fixed = false;
    const sent: string[] = [];
    const projected: string[] = [];
    @Injectable()
    class MailConsumer implements HandlerConsumer<'items.item.created.v1'> {
      readonly durableName = 'test__mail';
      readonly subjects = ['items.item.created.v1'] as const;
      readonly startFrom = 'new';
      readonly staleAfterMs = 60 * 60 * 1000;
      readonly idempotency = 'handler';
      async handle(event: DomainEvent<'items.item.created.v1'>) {
        if (!fixed && event.data.code === 'broken') throw new Error('template missing');
        sent.push(event.data.code);
      }
    }
    @Injectable()
    class ProjectionConsumer implements LedgerConsumer<'items.item.created.v1'> {
      readonly durableName = 'test__projection';
      readonly subjects = ['items.item.created.v1'] as const;
      readonly startFrom = 'new';
      readonly staleAfterMs = 60 * 60 * 1000;
      readonly idempotency = 'ledger';
      async handle(event: DomainEvent<'items.item.created.v1'>) {
        projected.push(event.data.code);
      }
    }
    // Published before the consumers exist: a side-effect consumer must not act on it.
    await publish(created('before'));
    const moduleRef = await start([MailConsumer, ProjectionConsumer]);
    await expectEventually(async () => expect((await consumerInfo('test__mail')).name).toBe('test__mail'));
    await publish(created('broken'));
    await publish(created('fine'));
    await expectEventually(async () => expect(await deadLettersOf('test__mail')).toBe(1), { timeoutMs: 15_000 });
    await expectEventually(() => expect(sent).toEqual(['fine']));
    expect(projected.sort()).toEqual(['broken', 'fine']);

    fixed = true;
    const streams = moduleRef.get(JetStreamStreams);
    const report = await replayDeadLetters(moduleRef.get(NatsClient), streams, { service: 'test', consumer: 'test__mail' });
    expect(report).toEqual({ replayed: 1, notReplayable: 0 });
    await expectEventually(() => expect(sent).toEqual(['fine', 'broken']));
    expect(await deadLettersOf('test__mail')).toBe(0);
    // The other consumer of the subject had handled it already and skips the replay.
    await expectEventually(async () => expect((await consumerInfo('test__projection')).num_ack_pending).toBe(0));
    expect(projected.sort()).toEqual(['broken', 'fine']);
    expect(sent).not.toContain('before');
  });

  it('starts a consumer that takes over others where the one furthest behind had got to, and retires each once nothing pulls from it', async () => {
    const handled = new Map<string, string[]>();
    const noting = (durableName: string, succeeds?: readonly string[]): Type<HandlerConsumer> => {
      handled.set(durableName, handled.get(durableName) ?? []);
      @Injectable()
      class NotingConsumer implements HandlerConsumer<'items.item.created.v1'> {
        readonly durableName = durableName;
        readonly subjects = ['items.item.created.v1'] as const;
        readonly startFrom = 'new';
        readonly staleAfterMs = 60 * 60 * 1000;
        readonly idempotency = 'handler';
        readonly succeeds = succeeds;
        async handle(event: DomainEvent<'items.item.created.v1'>) {
          handled.get(durableName)?.push(event.data.code);
        }
      }
      return NotingConsumer;
    };
    const settled = (name: string) =>
      expectEventually(async () => {
        const info = await consumerInfo(name);
        expect(info.num_pending + info.num_ack_pending).toBe(0);
      });
    const gone = (name: string) => expectEventually(() => expect(consumerInfo(name)).rejects.toThrow(/consumer not found/), { timeoutMs: 15_000 });
    const stop = async (moduleRef: TestingModule) => {
      modules.splice(modules.indexOf(moduleRef), 1);
      await moduleRef.close();
    };

    // The old code's two consumers of the subject handle an event, then stop; one of them runs again and handles one more.
    const old = await start([noting('test__old-behind'), noting('test__old-ahead')]);
    await expectEventually(async () => expect((await consumerInfo('test__old-ahead')).name).toBe('test__old-ahead'));
    await expectEventually(async () => expect((await consumerInfo('test__old-behind')).name).toBe('test__old-behind'));
    await publish(created('by-both'));
    await settled('test__old-behind');
    await settled('test__old-ahead');
    await stop(old);
    const stillRunning = await start([noting('test__old-ahead')]);
    await publish(created('by-ahead'));
    await settled('test__old-ahead');
    const behindLeft = (await consumerInfo('test__old-behind')).ack_floor.stream_seq + 1;

    // The successor starts where the one furthest behind had got to: what it left comes, what both had handled does not.
    await start([noting('test__successor', ['test__old-behind', 'test__old-ahead'])]);
    await expectEventually(async () => expect((await consumerInfo('test__successor')).config).toMatchObject({ deliver_policy: 'by_start_sequence', opt_start_seq: behindLeft }));
    await publish(created('after'));
    await expectEventually(() => expect(handled.get('test__successor')).toEqual(['by-ahead', 'after']));

    // Nothing pulls from the one behind: it is retired. The one a process still runs is kept until that process stops.
    await gone('test__old-behind');
    await new Promise((resolveLater) => setTimeout(resolveLater, 5000));
    expect((await consumerInfo('test__old-ahead')).name).toBe('test__old-ahead');
    expect(handled.get('test__old-ahead')).toEqual(['by-both', 'by-ahead', 'after']);
    await stop(stillRunning);
    await gone('test__old-ahead');
    expect(handled.get('test__successor')).toEqual(['by-ahead', 'after']);
  });

  /**
   * A ledger consumer that fails on the event of `code`, noting each try. It starts at new events, so that the event
   * comes alone (in a batch, a failure is tried once more on its own before it counts).
   */
  function brokenConsumer(durableName: string, code: string, tries: string[]): Type<LedgerConsumer> {
    @Injectable()
    class BrokenConsumer implements LedgerConsumer<'items.item.created.v1'> {
      readonly durableName = durableName;
      readonly subjects = ['items.item.created.v1'] as const;
      readonly startFrom = 'new';
      readonly staleAfterMs = 60 * 60 * 1000;
      readonly idempotency = 'ledger';
      async handle(event: DomainEvent<'items.item.created.v1'>) {
        if (event.data.code !== code) return;
        tries.push(event.data.code);
        throw new Error('cannot apply this event');
      }
    }
    return BrokenConsumer;
  }
  const failureRows = async (consumer: string) =>
    (await db.query(`SELECT failures FROM "${database.schema}".event_handler_failures WHERE consumer = $1`, [consumer])).rows.map((row: { failures: number }) => row.failures);

  it('counts a failing event’s handler errors for the consumer, not the process: a process started after another stopped goes on from its count', async () => {
    const tries: string[] = [];
    const consumer = brokenConsumer('test__broken_restart', 'poison-restart', tries);
    const threeTries = { ...fast, deadLetterAfter: 3 };
    const first = await start([consumer], threeTries);
    await expectEventually(async () => expect((await consumerInfo('test__broken_restart')).name).toBe('test__broken_restart'));
    await publish(created('poison-restart'));
    await expectEventually(() => expect(tries).toHaveLength(2));
    expect(await failureRows('test__broken_restart')).toEqual([2]);
    // Stopped before its next try (600 ms after the second), as a crash or a rollout would stop it.
    await first.close();
    modules.splice(modules.indexOf(first), 1);

    await start([consumer], threeTries);
    await expectEventually(async () => expect(await deadLettersOf('test__broken_restart')).toBe(1), { timeoutMs: 15_000 });
    expect(tries).toHaveLength(3);
    // Dead-lettered: its count went with it.
    expect(await failureRows('test__broken_restart')).toEqual([]);
  });

  it('dead-letters after as many tries in all when two replicas share the event’s retries', async () => {
    const tries: string[] = [];
    const consumer = brokenConsumer('test__broken_replicas', 'poison-replicas', tries);
    const fourTries = { ...fast, deadLetterAfter: 4 };
    await Promise.all([start([consumer], fourTries), start([consumer], fourTries)]);
    await expectEventually(async () => expect((await consumerInfo('test__broken_replicas')).name).toBe('test__broken_replicas'));
    await publish(created('poison-replicas'));
    await expectEventually(async () => expect(await deadLettersOf('test__broken_replicas')).toBe(1), { timeoutMs: 15_000 });
    // Terminated: nobody tries it again.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(tries).toHaveLength(4);
    expect(await failureRows('test__broken_replicas')).toEqual([]);
  });

  it('reconciles a stream whose settings drifted, and refuses a drift it cannot change in place', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [PlatformModule.forService({ service: 'streams-test', config: testConfig(infra.natsUrl, `${namespace}_s`) })],
    }).compile();
    moduleRef.useLogger(false);
    modules.push(moduleRef);
    const nats = moduleRef.get(NatsClient);
    await nats.connect();
    const streams = moduleRef.get(JetStreamStreams);
    const name = streams.streamName('events');
    await streams.ensure();
    await jsm.streams.update(name, { ...(await jsm.streams.info(name)).config, max_age: 3600 * 1e9 });
    // A restarted service (a fresh instance) brings max_age back to its configuration.
    await new JetStreamStreams(nats).ensure();
    expect((await jsm.streams.info(name)).config.max_age).toBe(7 * 24 * 60 * 60 * 1e9);

    await jsm.streams.delete(name);
    await jsm.streams.add({ name, subjects: [`${namespace}_s.items.item.created.v1`], storage: 'memory' as never });
    await expect(new JetStreamStreams(nats).ensure()).rejects.toThrow(/storage is memory, configured file/);
    await deleteNamespaceStreams(nc, `${namespace}_s`);
  });
});
