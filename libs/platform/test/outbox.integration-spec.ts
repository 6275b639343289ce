import { randomUUID } from 'node:crypto';
import { Test, type TestingModule } from '@nestjs/testing';
import { trace } from '@opentelemetry/api';
import { node } from '@opentelemetry/sdk-node';
import { jetstream } from '@nats-io/jetstream';
import { Client } from 'pg';
import { STREAMS } from '@homing/contracts';
import { deleteNamespaceStreams, dropSchemas, ensureDatabase, expectEventually, isolatedName, testInfra, waitForEvent } from '@homing/testing';
import { testConfig } from './test-config';
import { Database, databaseMetrics, dataSourceOptions, JetStreamStreams, outboxMetrics, migrateSchema, NatsClient, OutboxRelay, outboxChannel, outboxListenerName, OutboxWriter, PlatformModule, republishSetAside, JetStreamPublishError, JetStreamPublisher, type DatabaseOptions, type RowChange } from '../src';

// A real tracer provider, so the test can see the trace context an event carries.
new node.NodeTracerProvider().register();

// The transactional outbox against real PostgreSQL and JetStream. Until the last tests start it, the relay's loop does
// not run (the module is not initialised): each test drives `relayBatch()` itself, as a relay replica would, and the
// writer NOTIFYs as a command's does. Once it runs, events are dispatched as they commit.
describe('transactional outbox', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const database: DatabaseOptions = { url: infra.databaseUrl, schema: `outbox_${namespace}`, applicationName: 'outbox-test', migrations: [] };
  let moduleRef: TestingModule;
  let db: Database;
  let writer: OutboxWriter;
  let relay: OutboxRelay;
  let nats: NatsClient;
  const streamName = `${namespace.toUpperCase()}_${STREAMS.events.name}`;

  const aggregate = { aggregateId: 'ABCDEFGHJKMNPQRS', version: 1 };
  const recordCreated = (ownerUserId = randomUUID(), by = writer) =>
    db.transaction((manager) =>
      by.record(manager, 'items.item.created.v1', { code: 'ABCDEFGHJKMNPQRS', ownerUserId, claimedAt: new Date().toISOString() }, aggregate),
    );
  // A row written by another process of the service (a command, or a replica): no relay of its own dispatches it, so
  // its NOTIFY wakes this one's relay. Once this relay's loop runs, rows recorded with `writer` are dispatched at once.
  const recordElsewhere = () => recordCreated(randomUUID(), new OutboxWriter({ producer: 'outbox-test', schema: database.schema, databaseUrl: database.url }, db));
  // Every publish the relays make, duplicates that JetStream acknowledged and dropped included.
  const publishes = async () => (await outboxMetrics.published.get()).values.reduce((sum, { value }) => sum + value, 0);
  const streamMessages = async () => (await (await nats.jsm()).streams.info(streamName)).state.messages;
  const pending = async () => Number((await db.rows<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE published_at IS NULL'))[0].n);
  /** When each `items.item.created.v1` event reached a subscriber, and a wait for one of them to arrive. */
  const watchCreated = () => {
    const arrivals = new Map<string, number>();
    const subscription = nats.nc.subscribe(`${namespace}.items.item.created.v1`, {
      callback: (_error, msg) => void arrivals.set((msg.json() as { id: string }).id, Date.now()),
    });
    const arrivalOf = (id: string) =>
      expectEventually(
        () => {
          const at = arrivals.get(id);
          if (!at) throw new Error(`event ${id} not published yet`);
          return at;
        },
        { timeoutMs: 8000, intervalMs: 10 },
      );
    return { arrivals, arrivalOf, stop: () => subscription.unsubscribe() };
  };

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    await migrateSchema(dataSourceOptions(database) as Parameters<typeof migrateSchema>[0]);
    moduleRef = await Test.createTestingModule({
      imports: [PlatformModule.forService({ service: 'outbox-test', config: testConfig(infra.natsUrl, namespace), database, outbox: true })],
    }).compile();
    db = moduleRef.get(Database);
    writer = moduleRef.get(OutboxWriter);
    relay = moduleRef.get(OutboxRelay);
    nats = moduleRef.get(NatsClient);
    await nats.connect();
    await moduleRef.get(JetStreamStreams).ensure();
  });

  afterAll(async () => {
    await deleteNamespaceStreams(nats.nc, namespace);
    await moduleRef.close();
    await dropSchemas(infra.databaseUrl, [database.schema]);
  });

  it('publishes a committed event with its id as the message id and marks it published', async () => {
    const published = waitForEvent(nats.nc, namespace, 'items.item.created.v1');
    const event = await recordCreated();
    expect(await relay.relayBatch()).toBe(1);
    expect(await published).toEqual(event);
    expect(event).toMatchObject({ aggregateId: aggregate.aggregateId, version: 1 });
    const [row] = await db.rows<{ published_at: Date | null }>('SELECT published_at FROM outbox WHERE id = $1', [event.id]);
    expect(row.published_at).not.toBeNull();
  });

  it('carries the trace context of the request that recorded the event to its consumers', async () => {
    const subscription = nats.nc.subscribe(`${namespace}.items.item.created.v1`, { max: 1 });
    const traceId = await trace.getTracer('test').startActiveSpan('request', async (span) => {
      await recordCreated();
      span.end();
      return span.spanContext().traceId;
    });
    await relay.relayBatch();
    for await (const msg of subscription) expect(msg.headers?.get('traceparent')).toContain(traceId);
  });

  it('publishes nothing for a transaction that rolled back', async () => {
    await db
      .transaction(async (manager) => {
        await writer.record(manager, 'items.item.created.v1', { code: 'ABCDEFGHJKMNPQRS', ownerUserId: randomUUID(), claimedAt: new Date().toISOString() }, aggregate);
        throw new Error('the state change failed');
      })
      .catch(() => undefined);
    expect(await pending()).toBe(0);
    expect(await relay.relayBatch()).toBe(0);
  });

  it('records a change and its event as one statement: both, or neither when the change fails', async () => {
    await db.rows('CREATE TABLE IF NOT EXISTS changes (name text PRIMARY KEY)');
    const change = { sql: 'INSERT INTO changes (name) VALUES ($1)', parameters: ['first'] };
    const data = { code: 'ABCDEFGHJKMNPQRS', ownerUserId: randomUUID(), claimedAt: new Date().toISOString() };
    const event = await writer.recordAlong(change, 'items.item.created.v1', data, aggregate);
    expect(await db.rows('SELECT name FROM changes')).toEqual([{ name: 'first' }]);
    expect(await pending()).toBe(1);
    // The same change again breaks the primary key: no second event either.
    await expect(writer.recordAlong(change, 'items.item.created.v1', data, aggregate)).rejects.toThrow(/duplicate key/);
    expect(await pending()).toBe(1);
    const published = waitForEvent(nats.nc, namespace, 'items.item.created.v1');
    expect(await relay.relayBatch()).toBe(1);
    expect(await published).toEqual(event);
  });

  it('records a change that draws a number and its event as one statement: the number in the event, nothing without a row', async () => {
    await db.rows('CREATE TABLE IF NOT EXISTS numbered (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text UNIQUE)');
    const change = (name: string) => ({
      ctes: 'change AS (INSERT INTO numbered (name) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id::float8 AS id, name)',
      parameters: [name],
    });
    const data = { itemCode: 'ABCDEFGHJKMNPQRS', conversationId: randomUUID(), author: 'finder' as const, ownerUserId: randomUUID() };
    // No relay of this process dispatches yet: the row wakes the relays by NOTIFY, in the same statement.
    const relays = new Client({ connectionString: infra.databaseUrl });
    await relays.connect();
    await relays.query(`LISTEN ${outboxChannel(database.schema)}`);
    const notified = new Promise<string | undefined>((resolve) => relays.once('notification', (notification) => resolve(notification.payload)));
    const recorded = await writer.recordFromRow(undefined, change('first'), 'messaging.message.created.v1', data, 'ABCDEFGHJKMNPQRS', { version: 'id', data: { messageId: 'id' } });
    await expect(notified).resolves.toBe(recorded?.event.id);
    await relays.end();
    const [row] = await db.rows<{ id: number }>("SELECT id::float8 AS id FROM numbered WHERE name = 'first'");
    expect(recorded?.row).toEqual({ id: row.id, name: 'first' });
    expect(recorded?.event).toMatchObject({ subject: 'messaging.message.created.v1', aggregateId: 'ABCDEFGHJKMNPQRS', version: row.id, data: { ...data, messageId: row.id } });
    expect(await pending()).toBe(1);
    // A change that returns no row records no event; one in a transaction that rolls back, neither.
    expect(await writer.recordFromRow(undefined, change('first'), 'messaging.message.created.v1', data, 'ABCDEFGHJKMNPQRS', { version: 'id', data: { messageId: 'id' } })).toBeNull();
    await expect(
      db.transaction(async (transaction) => {
        expect(await writer.recordFromRow(transaction, change('second'), 'messaging.message.created.v1', data, 'ABCDEFGHJKMNPQRS', { version: 'id', data: { messageId: 'id' } })).not.toBeNull();
        throw new Error('the rest failed');
      }),
    ).rejects.toThrow('the rest failed');
    expect(await pending()).toBe(1);
    expect(await db.rows('SELECT name FROM numbered ORDER BY id')).toEqual([{ name: 'first' }]);
    // What the relay publishes from the row is the event as it was answered, number included.
    const published = waitForEvent(nats.nc, namespace, 'messaging.message.created.v1');
    expect(await relay.relayBatch()).toBe(1);
    expect(await published).toEqual(recorded?.event);
  });

  it('takes an event’s version and fields from the columns its change names, arrays too', async () => {
    const change: RowChange<{ ids: number[]; drawn: number }> = { ctes: 'change AS (SELECT ARRAY[3, 5]::float8[] AS ids, 9::float8 AS drawn)', parameters: [] };
    const data = { itemCode: 'ABCDEFGHJKMNPQRS', conversationId: randomUUID() };
    const recorded = await writer.recordFromRow(undefined, change, 'messaging.messages.receipts.v1', data, 'ABCDEFGHJKMNPQRS', { version: 'drawn', data: { messageIds: 'ids' } });
    expect(recorded?.event).toMatchObject({ version: 9, data: { ...data, messageIds: [3, 5] } });
    const published = waitForEvent(nats.nc, namespace, 'messaging.messages.receipts.v1');
    expect(await relay.relayBatch()).toBe(1);
    expect(await published).toEqual(recorded?.event);
    // The rest of the data is checked against the contract before anything is written.
    await expect(
      writer.recordFromRow(undefined, change, 'messaging.messages.receipts.v1', { ...data, conversationId: 'not-a-uuid' }, 'ABCDEFGHJKMNPQRS', { version: 'drawn', data: { messageIds: 'ids' } }),
    ).rejects.toThrow();
    expect(await pending()).toBe(0);
  });

  it('refuses an event whose payload breaks its contract, inside the producer transaction', async () => {
    await expect(
      db.transaction((manager) => writer.record(manager, 'items.item.created.v1', { code: 'X', ownerUserId: 'not-a-uuid', claimedAt: 'yesterday' }, aggregate)),
    ).rejects.toThrow();
    expect(await pending()).toBe(0);
  });

  it('stores no duplicate when a relay died after publishing and before marking the row (F3)', async () => {
    const event = await recordCreated();
    const [row] = await db.rows<{ envelope: unknown }>('SELECT envelope FROM outbox WHERE id = $1', [event.id]);
    // What the dead relay got acknowledged before it could mark the row.
    await jetstream(nats.nc).publish(`${namespace}.items.item.created.v1`, JSON.stringify(row.envelope), { msgID: event.id });
    const before = await streamMessages();
    expect(await relay.relayBatch()).toBe(1);
    expect(await streamMessages()).toBe(before);
    expect(await pending()).toBe(0);
  });

  it('lets replicas relay side by side without publishing a row twice', async () => {
    const before = await streamMessages();
    const publishedBefore = await publishes();
    for (let i = 0; i < 150; i += 1) await recordCreated();
    const relayed = await Promise.all([relay.relayBatch(), relay.relayBatch(), relay.relayBatch()]);
    // Batches of 100: one replica takes 100 rows, another the remaining 50, rows locked by one are skipped by the others.
    expect(relayed.reduce((sum, count) => sum + count, 0) + (await relay.relayBatch())).toBe(150);
    expect(await streamMessages()).toBe(before + 150);
    // A row published twice would be dropped by JetStream's de-duplication, so only the count of publishes shows it.
    expect((await publishes()) - publishedBefore).toBe(150);
    expect(await pending()).toBe(0);
  });

  describe('rows JetStream does not take', () => {
    interface FailureState {
      refusals: number;
      last_refusal: string | null;
      first_refused: boolean;
      deferred: boolean;
      set_aside: boolean;
    }
    const stateOf = async (id: string) =>
      (
        await db.rows<FailureState>(
          `SELECT refusals, last_refusal, first_refused_at IS NOT NULL AS first_refused, retry_at > now() AS deferred, set_aside_at IS NOT NULL AS set_aside
             FROM outbox WHERE id = $1`,
          [id],
        )
      )[0];
    // Written a second before anything else, so it heads every batch, as the relay reads oldest first.
    const recordRaw = async (subject: string, envelope: unknown) => {
      const id = randomUUID();
      await db.rows(`INSERT INTO outbox (id, subject, envelope, created_at) VALUES ($1, $2, $3, now() - interval '1 second')`, [id, subject, JSON.stringify(envelope)]);
      return id;
    };
    const due = (id: string) => db.rows(`UPDATE outbox SET retry_at = now() - interval '1 second' WHERE id = $1`, [id]);
    // As if it had been refused nine times over the last two hours: the next refusal sets it aside.
    const refusedForAnHour = (id: string) =>
      db.rows(`UPDATE outbox SET refusals = 9, first_refused_at = now() - interval '2 hours', retry_at = now() - interval '1 second' WHERE id = $1`, [id]);
    const setAsideCount = async () => (await outboxMetrics.setAside.get()).values.reduce((sum, { value }) => sum + value, 0);

    afterEach(() => jest.restoreAllMocks());

    it('publishes the rows behind one, counts its refusals, sets it aside after an hour of them, and offers it again on demand', async () => {
      // A subject no stream stores (an event of a contract whose stream a deployment lacks).
      const poison = await recordRaw('nowhere.thing.v1', { id: 'x' });
      const published = waitForEvent(nats.nc, namespace, 'items.item.created.v1');
      const behind = await recordCreated();
      expect(await relay.relayBatch()).toBe(1);
      expect(await published).toEqual(behind);
      expect(await stateOf(poison)).toEqual({ refusals: 1, last_refusal: expect.stringContaining('no stream stores'), first_refused: true, deferred: true, set_aside: false });
      // Deferred: the next batch does not offer it.
      expect(await relay.relayOnce()).toEqual({ read: 0, published: 0 });

      // Due again and alone in its batch: JetStream answers when asked, so the refusal is the row's own and counted.
      await due(poison);
      expect(await relay.relayOnce()).toEqual({ read: 1, published: 0 });
      expect(await stateOf(poison)).toMatchObject({ refusals: 2, deferred: true, set_aside: false });

      await refusedForAnHour(poison);
      const setAsideBefore = await setAsideCount();
      expect(await relay.relayOnce()).toEqual({ read: 1, published: 0 });
      expect(await stateOf(poison)).toMatchObject({ refusals: 10, set_aside: true });
      expect((await setAsideCount()) - setAsideBefore).toBe(1);
      // Set aside: no batch offers it any more, due or not.
      await due(poison);
      expect(await relay.relayOnce()).toEqual({ read: 0, published: 0 });

      expect(await republishSetAside(db, database.schema)).toBe(1);
      expect(await stateOf(poison)).toMatchObject({ refusals: 0, first_refused: false, deferred: null, set_aside: false });
      await db.rows('DELETE FROM outbox WHERE id = $1', [poison]);
      expect(await pending()).toBe(0);
    });

    it('lets the rows behind a whole batch of refused ones through', async () => {
      const refused = [];
      for (let i = 0; i < 150; i += 1) refused.push(await recordRaw('nowhere.thing.v1', { id: i }));
      const behind = await recordCreated();
      const published = waitForEvent(nats.nc, namespace, 'items.item.created.v1');
      // The first batch is 100 refused rows, which step aside; the second holds the other 50 and the event behind.
      expect(await relay.relayOnce()).toEqual({ read: 100, published: 0 });
      expect((await db.rows<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE retry_at IS NOT NULL'))[0].n).toBe('100');
      // Their 2 s are not over before the next batch however slow this machine is.
      await db.rows(`UPDATE outbox SET retry_at = now() + interval '1 hour' WHERE retry_at IS NOT NULL`);
      expect(await relay.relayOnce()).toEqual({ read: 51, published: 1 });
      expect(await published).toEqual(behind);
      expect((await db.rows<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE refusals = 1 AND retry_at IS NOT NULL'))[0].n).toBe('150');
      await db.rows('DELETE FROM outbox WHERE id = ANY($1::uuid[])', [refused]);
      expect(await pending()).toBe(0);
    });

    it('offers a row whose acknowledgement did not come again later, without counting it against the row', async () => {
      // One stream's servers frozen while the others answer: its message is never acknowledged.
      const publisher = (relay as unknown as { publisher: JetStreamPublisher }).publisher;
      const publish = publisher.publish.bind(publisher);
      jest.spyOn(publisher, 'publish').mockImplementation((nc, subject, data, options) =>
        subject.endsWith('.frozen.thing.v1') ? Promise.reject(new JetStreamPublishError(`no acknowledgement for ${subject} in time`, 'no-acknowledgement')) : publish(nc, subject, data, options),
      );
      const unanswered = await recordRaw('frozen.thing.v1', { id: 'x' });
      const behind = await recordCreated();
      expect(await relay.relayOnce()).toEqual({ read: 2, published: 1 });
      expect(await stateOf(unanswered)).toEqual({ refusals: 0, last_refusal: expect.stringContaining('no acknowledgement'), first_refused: false, deferred: true, set_aside: false });
      expect((await db.rows<{ delay: number }>(`SELECT EXTRACT(EPOCH FROM retry_at - now())::float AS delay FROM outbox WHERE id = $1`, [unanswered]))[0].delay).toBeGreaterThan(20);
      expect(await db.rows('SELECT published_at FROM outbox WHERE id = $1 AND published_at IS NOT NULL', [behind.id])).toHaveLength(1);
      await db.rows('DELETE FROM outbox WHERE id = $1', [unanswered]);
    });

    it('commits what it published when recording a refusal fails, and fails the batch so the loop backs off', async () => {
      const poison = await recordRaw('nowhere.thing.v1', { id: 'x' });
      // The database refuses to record anything about this row (a fault below the relay).
      await db.rows(`CREATE FUNCTION refuse_refusals() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'no refusals today'; END $$ LANGUAGE plpgsql`);
      await db.rows(`CREATE TRIGGER refuse_refusals BEFORE UPDATE OF last_refusal ON outbox FOR EACH ROW EXECUTE FUNCTION refuse_refusals()`);
      try {
        const behind = await recordCreated();
        await expect(relay.relayOnce()).rejects.toThrow(/recording 1 unpublished event\(s\) failed: no refusals today/);
        expect(await db.rows('SELECT 1 FROM outbox WHERE id = $1 AND published_at IS NOT NULL', [behind.id])).toHaveLength(1);
        expect(await stateOf(poison)).toEqual({ refusals: 0, last_refusal: null, first_refused: false, deferred: null, set_aside: false });
      } finally {
        await db.rows('DROP TRIGGER refuse_refusals ON outbox');
        await db.rows('DROP FUNCTION refuse_refusals()');
        await db.rows('DELETE FROM outbox WHERE id = $1', [poison]);
      }
    });

    it('counts nothing and changes nothing while JetStream does not answer', async () => {
      const poison = await recordRaw('nowhere.thing.v1', { id: 'x' });
      // What an outage looks like to the relay: no stream answers, nor does JetStream's API.
      jest.spyOn(nats, 'jsm').mockRejectedValue(new Error('JetStream is not available'));
      await expect(relay.relayOnce()).rejects.toThrow(/no stream stores/);
      expect(await stateOf(poison)).toEqual({ refusals: 0, last_refusal: null, first_refused: false, deferred: null, set_aside: false });
      await db.rows('DELETE FROM outbox WHERE id = $1', [poison]);
    });

    it('names an envelope over the size limit as such, and deletes a secret event it would set aside', async () => {
      // Over NATS's 1 MB message limit: refused by the client before it is sent.
      const envelope = { id: randomUUID(), subject: 'identity.login-code.requested.v1', padding: 'x'.repeat(1_100_000) };
      const secret = await recordRaw('identity.login-code.requested.v1', envelope);
      await recordCreated();
      expect(await relay.relayBatch()).toBe(1);
      expect(await stateOf(secret)).toMatchObject({ refusals: 1, last_refusal: expect.stringMatching(/could not be sent: .*max_payload/i), set_aside: false });
      await refusedForAnHour(secret);
      expect(await relay.relayOnce()).toEqual({ read: 1, published: 0 });
      expect(await stateOf(secret)).toBeUndefined();
      expect(await pending()).toBe(0);
    });
  });

  // Last: it starts the relay's own loop, which the tests above drive by hand.
  it('publishes a row committed while a batch is being published at once, not at the next poll', async () => {
    const { arrivals, stop } = watchCreated();
    const relayOnce = relay.relayOnce.bind(relay);
    let committedDuringBatch: { id: string } | undefined;
    let batchEnded = 0;
    jest.spyOn(relay, 'relayOnce').mockImplementation(async () => {
      const batch = await relayOnce();
      if (batch.published > 0 && !committedDuringBatch) {
        // Another process commits while this batch is still being published (a slow JetStream ack).
        committedDuringBatch = await recordElsewhere();
        await new Promise((resolve) => setTimeout(resolve, 200));
        batchEnded = Date.now();
      }
      return batch;
    });
    relay.onApplicationBootstrap();
    await recordElsewhere();
    const published = await expectEventually(
      () => {
        const at = committedDuringBatch && arrivals.get(committedDuringBatch.id);
        if (!at) throw new Error('the row committed during the batch is not published yet');
        return at;
      },
      { timeoutMs: 7000, intervalMs: 10 },
    );
    stop();
    expect(published - batchEnded).toBeLessThan(100);
  });

  it('listens again as soon as its listener is cut off, and relays what was committed meanwhile, not at the next poll', async () => {
    // The relay's loop runs (started above). Its listener is the session waiting on the outbox's channel.
    const listenerPid = async () =>
      (await db.rows<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE query = $1', [`LISTEN ${outboxChannel(database.schema)}`]))[0]?.pid;
    const { arrivalOf, stop } = watchCreated();
    const cutOff = await expectEventually(async () => {
      const pid = await listenerPid();
      if (!pid) throw new Error('the relay is not listening yet');
      return pid;
    });
    // A publish that the relay has just made: it now sleeps a whole poll (5 s) unless something wakes it.
    await arrivalOf((await recordElsewhere()).id);
    await db.rows('SELECT pg_terminate_backend($1)', [cutOff]);
    await expectEventually(async () => expect(await db.rows('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [cutOff])).toEqual([]), { intervalMs: 10 });
    const cutAt = Date.now();
    // Committed while no one listens (or just as the relay listens again): its NOTIFY may reach no one.
    const meanwhile = await recordElsewhere();
    const published = await arrivalOf(meanwhile.id);
    stop();
    expect(published - cutAt).toBeLessThan(2000);
    expect(await listenerPid()).toEqual(expect.any(Number));
    expect(await listenerPid()).not.toBe(cutOff);
  });

  it('closes a session whose LISTEN failed, and listens again on a new one', async () => {
    // The relay's loop runs (started above). Its next two LISTENs fail after their session connected, as on a server
    // that refuses them (a standby after a failover); the round fails, backs off and tries a new session.
    const listenerSessions = async () =>
      db.rows<{ pid: number; query: string }>('SELECT pid, query FROM pg_stat_activity WHERE application_name = $1', [outboxListenerName(database.applicationName)]);
    const current = await expectEventually(async () => {
      const [session] = await listenerSessions();
      if (!session) throw new Error('the relay is not listening yet');
      return session.pid;
    });
    const query = Client.prototype.query;
    let refused = 0;
    const refuse = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].startsWith('LISTEN ') && refused < 2) {
        refused += 1;
        return Promise.reject(new Error('cannot execute LISTEN during recovery'));
      }
      return (query as (...all: unknown[]) => unknown).apply(this, args);
    } as typeof Client.prototype.query);
    try {
      await db.rows('SELECT pg_terminate_backend($1)', [current]);
      await expectEventually(() => expect(refused).toBe(2), { timeoutMs: 8000 });
      const sessions = await expectEventually(
        async () => {
          const listening = await listenerSessions();
          if (!listening.some((session) => session.query === `LISTEN ${outboxChannel(database.schema)}`)) throw new Error('not listening again yet');
          return listening;
        },
        { timeoutMs: 8000 },
      );
      // Only the session that listens: the two refused ones were closed.
      expect(sessions).toHaveLength(1);
      expect(sessions[0].pid).not.toBe(current);
    } finally {
      refuse.mockRestore();
    }
  });

  it('asks in one statement whether a poll finds anything, and relays a row that only a poll finds', async () => {
    // The relay's loop runs (started above). Statements outside a request or consumer count as `background`; the
    // test's own SQL goes through a client of its own so that only the relay's are counted.
    const background = async () => (await databaseMetrics.queries.get()).values.filter(({ labels }) => labels.work === 'background').reduce((sum, { value }) => sum + value, 0);
    const own = new Client({ connectionString: infra.databaseUrl });
    await own.connect();
    const { arrivalOf, stop } = watchCreated();
    try {
      // A NOTIFY wakes the relay for a round; once its marks are in, it sleeps a whole poll (5 s).
      await arrivalOf((await recordElsewhere()).id);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = await background();
      await new Promise((resolve) => setTimeout(resolve, 5500));
      // One poll with nothing to publish: one statement, not a transaction's BEGIN, locking read and COMMIT.
      expect((await background()) - before).toBe(1);

      // A row no one dispatched or notified (its process died just after the commit): the next poll publishes it.
      const event = {
        id: randomUUID(),
        subject: 'items.item.created.v1',
        occurredAt: new Date().toISOString(),
        correlationId: 'outbox-test',
        causationId: null,
        producer: 'outbox-test',
        ...aggregate,
        data: { code: 'ABCDEFGHJKMNPQRS', ownerUserId: randomUUID(), claimedAt: new Date().toISOString() },
      };
      const written = Date.now();
      await own.query(`INSERT INTO "${database.schema}".outbox (id, subject, envelope) VALUES ($1, $2, $3)`, [event.id, event.subject, JSON.stringify(event)]);
      expect((await arrivalOf(event.id)) - written).toBeLessThan(5500);
    } finally {
      stop();
      await own.end();
    }
  });

  describe('events its own process commits (the loop runs: started above)', () => {
    const publishedAt = async (id: string) => (await db.rows<{ published_at: Date | null }>('SELECT published_at FROM outbox WHERE id = $1', [id]))[0]?.published_at;
    const arrivalsOf = (subject: string) => {
      const arrived = new Set<string>();
      const subscription = nats.nc.subscribe(`${namespace}.${subject}`, { callback: (_error, msg) => void arrived.add((msg.json() as { id: string }).id) });
      return { arrived, stop: () => subscription.unsubscribe() };
    };
    afterEach(() => jest.restoreAllMocks());
    // Each `messaging.message.created.v1` published, as it was published.
    const watchCreatedMessages = () => {
      const arrived = new Map<string, unknown>();
      const subscription = nats.nc.subscribe(`${namespace}.messaging.message.created.v1`, { callback: (_error, msg) => void arrived.set((msg.json() as { id: string }).id, msg.json()) });
      return { arrived, stop: () => subscription.unsubscribe() };
    };

    it('publishes one as it commits and marks it, without a round of the relay', async () => {
      // No round of the relay publishes anything here: only the dispatch can.
      jest.spyOn(relay, 'relayOnce').mockResolvedValue({ read: 0, published: 0 });
      const created = arrivalsOf('items.item.created.v1');
      const event = await recordCreated();
      await expectEventually(() => expect(created.arrived.has(event.id)).toBe(true), { timeoutMs: 3000, intervalMs: 10 });
      await expectEventually(async () => expect(await publishedAt(event.id)).toEqual(expect.any(Date)), { timeoutMs: 3000, intervalMs: 10 });
      created.stop();
    });

    it('publishes the events of one transaction together, once it commits', async () => {
      jest.spyOn(relay, 'relayOnce').mockResolvedValue({ read: 0, published: 0 });
      const dispatch = jest.spyOn(relay, 'dispatch');
      const created = arrivalsOf('items.item.created.v1');
      const claimedAt = new Date().toISOString();
      const events = await db.transaction(async (transaction) => [
        await writer.record(transaction, 'items.item.created.v1', { code: 'ABCDEFGHJKMNPQRS', ownerUserId: randomUUID(), claimedAt }, aggregate),
        await writer.record(transaction, 'items.item.created.v1', { code: 'ABCDEFGHJKMNPQRS', ownerUserId: randomUUID(), claimedAt }, aggregate),
      ]);
      expect(dispatch).toHaveBeenCalledTimes(1);
      expect(dispatch.mock.calls[0][0].map((event) => event.id)).toEqual(events.map((event) => event.id));
      await expectEventually(() => expect(events.every((event) => created.arrived.has(event.id))).toBe(true), { timeoutMs: 3000, intervalMs: 10 });
      for (const event of events) await expectEventually(async () => expect(await publishedAt(event.id)).toEqual(expect.any(Date)), { timeoutMs: 3000, intervalMs: 10 });
      created.stop();
    });

    it('publishes a change recorded along with its event as it is made', async () => {
      jest.spyOn(relay, 'relayOnce').mockResolvedValue({ read: 0, published: 0 });
      const created = arrivalsOf('items.item.created.v1');
      const data = { code: 'ABCDEFGHJKMNPQRS', ownerUserId: randomUUID(), claimedAt: new Date().toISOString() };
      const event = await writer.recordAlong({ sql: 'INSERT INTO changes (name) VALUES ($1)', parameters: [randomUUID()] }, 'items.item.created.v1', data, aggregate);
      await expectEventually(() => expect(created.arrived.has(event.id)).toBe(true), { timeoutMs: 3000, intervalMs: 10 });
      await expectEventually(async () => expect(await publishedAt(event.id)).toEqual(expect.any(Date)), { timeoutMs: 3000, intervalMs: 10 });
      created.stop();
    });

    it('publishes a numbered change’s event as it is made, or once its transaction commits, with its number', async () => {
      jest.spyOn(relay, 'relayOnce').mockResolvedValue({ read: 0, published: 0 });
      const dispatch = jest.spyOn(relay, 'dispatch');
      const created = watchCreatedMessages();
      const change = () => ({ ctes: 'change AS (INSERT INTO numbered (name) VALUES ($1) RETURNING id::float8 AS id)', parameters: [randomUUID()] });
      const data = { itemCode: 'ABCDEFGHJKMNPQRS', conversationId: randomUUID(), author: 'owner' as const, ownerUserId: randomUUID() };
      const alone = await writer.recordFromRow(undefined, change(), 'messaging.message.created.v1', data, 'ABCDEFGHJKMNPQRS', { version: 'id', data: { messageId: 'id' } });
      expect(dispatch).toHaveBeenCalledTimes(1);
      const inTransaction = await db.transaction(async (transaction) => {
        const recorded = await writer.recordFromRow(transaction, change(), 'messaging.message.created.v1', data, 'ABCDEFGHJKMNPQRS', { version: 'id', data: { messageId: 'id' } });
        expect(dispatch).toHaveBeenCalledTimes(1);
        return recorded;
      });
      expect(dispatch).toHaveBeenCalledTimes(2);
      for (const recorded of [alone, inTransaction]) {
        const event = recorded?.event as { id: string; version: number };
        await expectEventually(() => expect(created.arrived.get(event.id)).toEqual(event), { timeoutMs: 3000, intervalMs: 10 });
        expect(event.version).toBe(recorded?.row.id);
        await expectEventually(async () => expect(await publishedAt(event.id)).toEqual(expect.any(Date)), { timeoutMs: 3000, intervalMs: 10 });
      }
      created.stop();
    });

    it('marks the events dispatched within a moment of each other in one statement, each with when its publication began', async () => {
      jest.spyOn(relay, 'relayOnce').mockResolvedValue({ read: 0, published: 0 });
      const affected = jest.spyOn(db, 'affected');
      const created = arrivalsOf('items.item.created.v1');
      const events: Array<Awaited<ReturnType<typeof recordCreated>>> = [];
      for (let index = 0; index < 5; index += 1) events.push(await recordCreated());
      const committed = new Date();
      await expectEventually(() => expect(events.every((event) => created.arrived.has(event.id))).toBe(true), { timeoutMs: 3000, intervalMs: 5 });
      await expectEventually(async () => expect(await Promise.all(events.map((event) => publishedAt(event.id)))).toEqual(events.map(() => expect.any(Date))), { timeoutMs: 3000, intervalMs: 10 });
      const marks = affected.mock.calls.filter(([sql]) => (typeof sql === 'string' ? sql : sql.text).startsWith('UPDATE outbox o SET published_at'));
      // One statement for all five (two if a slow machine spread them over more than 100 ms), where each took one.
      expect(marks.length).toBeLessThanOrEqual(2);
      expect(marks.flatMap(([, parameters]) => parameters?.[0] as string[])).toEqual(events.map((event) => event.id));
      // Each row says when its publication began, not when the mark was written (up to 100 ms later).
      for (const event of events) expect((await publishedAt(event.id))!.getTime()).toBeLessThanOrEqual(committed.getTime() + 50);
      created.stop();
    });

    it('does not publish again, in a round of its own, a row it published and is about to mark', async () => {
      const created = arrivalsOf('items.item.created.v1');
      const event = await recordCreated();
      await expectEventually(() => expect(created.arrived.has(event.id)).toBe(true), { timeoutMs: 3000, intervalMs: 2 });
      // Its acknowledgement is in, its mark waits (up to 100 ms): a round now (a poll's, a NOTIFY's) leaves it alone.
      await new Promise((resolve) => setTimeout(resolve, 10));
      const publish = jest.spyOn(JetStreamPublisher.prototype, 'publish');
      await relay.relayOnce();
      expect(publish.mock.calls.filter(([, , , options]) => options?.msgID === event.id)).toEqual([]);
      await expectEventually(async () => expect(await publishedAt(event.id)).toEqual(expect.any(Date)), { timeoutMs: 3000, intervalMs: 10 });
      created.stop();
    });

    it('commits nothing to publish when the transaction rolls back', async () => {
      expect(relay.dispatches).toBe(true);
      const dispatch = jest.spyOn(relay, 'dispatch');
      await expect(
        db.transaction(async (transaction) => {
          await writer.record(transaction, 'items.item.created.v1', { code: 'ABCDEFGHJKMNPQRS', ownerUserId: randomUUID(), claimedAt: new Date().toISOString() }, aggregate);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect(dispatch).not.toHaveBeenCalled();
    });

    it('leaves one whose publish failed to the relay, which publishes it at once and not at the next poll', async () => {
      const publish = JetStreamPublisher.prototype.publish;
      let refused = 0;
      jest.spyOn(JetStreamPublisher.prototype, 'publish').mockImplementation(function (this: JetStreamPublisher, ...args: Parameters<JetStreamPublisher['publish']>) {
        if (refused === 0) {
          refused += 1;
          return Promise.reject(new Error('no JetStream answer in time'));
        }
        return publish.apply(this, args);
      });
      const created = arrivalsOf('items.item.created.v1');
      const committedAt = Date.now();
      const event = await recordCreated();
      await expectEventually(() => expect(created.arrived.has(event.id)).toBe(true), { timeoutMs: 8000, intervalMs: 10 });
      const arrivedAfter = Date.now() - committedAt;
      created.stop();
      expect(refused).toBe(1);
      expect(arrivedAfter).toBeLessThan(2000);
      await expectEventually(async () => expect(await publishedAt(event.id)).toEqual(expect.any(Date)), { timeoutMs: 3000, intervalMs: 10 });
    });

    it('deletes a secret one once JetStream took it', async () => {
      jest.spyOn(relay, 'relayOnce').mockResolvedValue({ read: 0, published: 0 });
      const secrets = arrivalsOf('identity.login-code.requested.v1');
      const event = await db.transaction((transaction) => writer.record(transaction, 'identity.login-code.requested.v1', { userId: randomUUID(), code: '123456' }, aggregate));
      await expectEventually(() => expect(secrets.arrived.has(event.id)).toBe(true), { timeoutMs: 3000, intervalMs: 10 });
      await expectEventually(async () => expect(await db.rows('SELECT 1 FROM outbox WHERE id = $1', [event.id])).toEqual([]), { timeoutMs: 3000, intervalMs: 10 });
      secrets.stop();
    });

    // Last: it stops the relay.
    it('tells the relays of other processes by NOTIFY of an event that commits as this one stops', async () => {
      const others = new Client({ connectionString: infra.databaseUrl });
      await others.connect();
      try {
        await others.query(`LISTEN ${outboxChannel(database.schema)}`);
        const notified = new Promise<void>((resolve) => others.once('notification', () => resolve()));
        // Recorded while the relay runs (no NOTIFY with the row), committed once it has stopped (SIGTERM meanwhile).
        const event = await db.transaction(async (transaction) => {
          const recorded = await writer.record(transaction, 'items.item.created.v1', { code: 'ABCDEFGHJKMNPQRS', ownerUserId: randomUUID(), claimedAt: new Date().toISOString() }, aggregate);
          await relay.onModuleDestroy();
          return recorded;
        });
        expect(relay.dispatches).toBe(false);
        await Promise.race([notified, new Promise((_, reject) => setTimeout(() => reject(new Error('no NOTIFY within 3 s')), 3000).unref())]);
        expect(await publishedAt(event.id)).toBeNull();
        // Another process's relay takes it.
        const published = waitForEvent(nats.nc, namespace, 'items.item.created.v1', (arrived) => arrived.id === event.id);
        expect(await relay.relayBatch()).toBeGreaterThanOrEqual(1);
        await published;
        expect(await publishedAt(event.id)).toEqual(expect.any(Date));
      } finally {
        await others.end();
      }
    });
  });
});
