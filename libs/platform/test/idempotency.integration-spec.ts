import { randomUUID } from 'node:crypto';
import { Test, type TestingModule } from '@nestjs/testing';
import { Client } from 'pg';
import { dropSchemas, ensureDatabase, isolatedName, testInfra } from '@homing/testing';
import { testConfig } from './test-config';
import { Database, dataSourceOptions, IdempotencyKeys, migrateSchema, PlatformModule, RpcError, storedIdempotencyKey, type DatabaseOptions } from '../src';

interface Widget {
  id: number;
  name: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Idempotency keys against real PostgreSQL: a `widgets` table stands in for a service's state.
describe('idempotency keys', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const database: DatabaseOptions = { url: infra.databaseUrl, schema: `idempotency_${namespace}`, applicationName: 'idempotency-test', migrations: [] };
  let moduleRef: TestingModule;
  let db: Database;
  let keys: IdempotencyKeys;
  // Times the work ran, as opposed to times it was answered.
  let runs = 0;

  const createWidget = (caller: string, key: string | null, request: { name: string; colour?: string }, options: { workMs?: number; fail?: boolean } = {}) =>
    keys.run<Widget>(key ? { operation: 'widgets.create', caller, key, request } : null, async (manager) => {
      runs += 1;
      const [widget]: Widget[] = await manager.query('INSERT INTO widgets (name) VALUES ($1) RETURNING id, name', [request.name]);
      if (options.workMs) await sleep(options.workMs);
      if (options.fail) throw new Error('the state change failed');
      return widget;
    });
  const widgetCount = async () => Number((await db.rows<{ n: number }>('SELECT count(*)::int AS n FROM widgets'))[0].n);
  const backdate = (key: string, hours: number) =>
    db.rows(`UPDATE idempotency_keys SET created_at = now() - make_interval(hours => $2) WHERE key = $1`, [storedIdempotencyKey(key), hours]);

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    await migrateSchema(dataSourceOptions(database) as Parameters<typeof migrateSchema>[0]);
    moduleRef = await Test.createTestingModule({
      imports: [PlatformModule.forService({ service: 'idempotency-test', config: testConfig(infra.natsUrl, namespace), database })],
    }).compile();
    db = moduleRef.get(Database);
    keys = moduleRef.get(IdempotencyKeys);
    await db.rows('CREATE TABLE widgets (id serial PRIMARY KEY, name text NOT NULL)');
  });

  afterAll(async () => {
    await moduleRef?.close();
    await dropSchemas(infra.databaseUrl, [database.schema]);
  });

  beforeEach(() => {
    runs = 0;
  });

  it('answers a retry with the first result, doing the work once', async () => {
    const caller = randomUUID();
    const before = await widgetCount();
    const first = await createWidget(caller, 'retry-1', { name: 'Keys', colour: 'red' });
    // The same content, its fields in another order, is the same request.
    const retry = await keys.run<Widget>({ operation: 'widgets.create', caller, key: 'retry-1', request: { colour: 'red', name: 'Keys' } }, () => {
      throw new Error('must not run again');
    });
    expect(retry).toEqual(first);
    expect(runs).toBe(1);
    expect(await widgetCount()).toBe(before + 1);
  });

  it('claims a key in its BEGIN’s round trip and stores the answer in its COMMIT’s: two round trips around the work', async () => {
    const caller = randomUUID();
    await createWidget(caller, 'warm-up', { name: 'Warm' });
    const sent = jest.spyOn(Client.prototype, 'query');
    try {
      const widget = await createWidget(caller, 'framed-1', { name: 'Umbrella' });
      // This run's statements (the module's own background work, such as its outbox relay, names other tables).
      const texts = sent.mock.calls.map(([text]) => String(text)).filter((text) => /idempotency_keys|widgets/.test(text));
      expect(texts.map((text) => text.trim().split(/\s/)[0])).toEqual(['BEGIN;', 'INSERT', 'UPDATE']);
      expect(texts[2]).toMatch(/;\s*COMMIT$/);
      expect(await keys.run<Widget>({ operation: 'widgets.create', caller, key: 'framed-1', request: { name: 'Umbrella' } }, () => Promise.reject(new Error('must not run again')))).toEqual(widget);
    } finally {
      sent.mockRestore();
    }
  });

  it('does the work every time without a key', async () => {
    const caller = randomUUID();
    const [a, b] = [await createWidget(caller, null, { name: 'Wallet' }), await createWidget(caller, null, { name: 'Wallet' })];
    expect(a.id).not.toBe(b.id);
    expect(runs).toBe(2);
  });

  it('keeps keys apart per caller: the same key from someone else is their own request', async () => {
    const mine = await createWidget(randomUUID(), 'shared-key', { name: 'Bike' });
    const theirs = await createWidget(randomUUID(), 'shared-key', { name: 'Bike' });
    expect(theirs.id).not.toBe(mine.id);
    expect(runs).toBe(2);
  });

  it('lets one of two simultaneous requests with the same key do the work, and gives the other its result', async () => {
    const caller = randomUUID();
    const before = await widgetCount();
    // The first holds the key for 300 ms; the second arrives while it does.
    const first = createWidget(caller, 'race-1', { name: 'Umbrella' }, { workMs: 300 });
    await sleep(50);
    const second = createWidget(caller, 'race-1', { name: 'Umbrella' }, { workMs: 300 });
    const [a, b] = await Promise.all([first, second]);
    expect(b).toEqual(a);
    expect(runs).toBe(1);
    expect(await widgetCount()).toBe(before + 1);
  });

  it('refuses the same key with a different request, changing nothing', async () => {
    const caller = randomUUID();
    await createWidget(caller, 'reused-1', { name: 'Scarf' });
    const before = await widgetCount();
    const refused = await createWidget(caller, 'reused-1', { name: 'Hat' }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).body).toMatchObject({ status: 422, response_code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await widgetCount()).toBe(before);
    expect(runs).toBe(1);
  });

  it('keeps nothing of a failed attempt, so its retry does the work', async () => {
    const caller = randomUUID();
    const before = await widgetCount();
    await expect(createWidget(caller, 'fails-1', { name: 'Phone' }, { fail: true })).rejects.toThrow('the state change failed');
    expect(await widgetCount()).toBe(before);
    const retry = await createWidget(caller, 'fails-1', { name: 'Phone' });
    expect(retry.name).toBe('Phone');
    expect(await widgetCount()).toBe(before + 1);
  });

  it('forgets a key after 24 hours: a late retry is a new request, and old keys are purged', async () => {
    const caller = randomUUID();
    const first = await createWidget(caller, 'old-1', { name: 'Glasses' });
    await backdate('old-1', 25);
    const late = await createWidget(caller, 'old-1', { name: 'Glasses' });
    expect(late.id).not.toBe(first.id);
    // Within the window, the renewed key answers with the new result.
    expect(await createWidget(caller, 'old-1', { name: 'Glasses' })).toEqual(late);

    await createWidget(caller, 'old-2', { name: 'Gloves' });
    await backdate('old-2', 25);
    await backdate('old-1', 23);
    expect(await keys.purgeExpired()).toBeGreaterThanOrEqual(1);
    const remaining: Array<{ key: string }> = await db.rows('SELECT key FROM idempotency_keys WHERE key IN ($1, $2)', [
      storedIdempotencyKey('old-1'),
      storedIdempotencyKey('old-2'),
    ]);
    expect(remaining.map((row) => row.key)).toEqual([storedIdempotencyKey('old-1')]);
  });
});
