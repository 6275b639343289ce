import { randomUUID } from 'node:crypto';
import { PUBLIC_ITEMS_BATCH_MAX } from '@homing/contracts';
import { Database } from '@homing/platform';
import { dropSchemas, ensureDatabase, isolatedName, runServiceCommand, testInfra } from '@homing/testing';
import { FIND_BY_CODES_SIZES, ItemsRepository } from '../src/items/items.repository';

// The scan's batched lookup (`items.rpc.get-public-many`) against real PostgreSQL, on a pool of one connection so that
// the test sees the statements that connection prepared.
describe('items: public lookups of several codes', () => {
  const infra = testInfra();
  const schema = `items_${isolatedName()}`;
  let database: Database;
  let items: ItemsRepository;
  const codes = Array.from({ length: 120 }, (_, index) => `ABCDEFGH${String(index).padStart(4, '0')}JKMN`);
  const coOwner = randomUUID();

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    await runServiceCommand('items', ['migrate'], { NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: infra.databaseUrl, DATABASE_SCHEMA: schema });
    database = new Database({ url: infra.databaseUrl, schema, applicationName: 'items-lookups-test', migrations: [], poolSize: 1 });
    items = new ItemsRepository(database);
    // Every other code exists; the first has a co-owner.
    for (const code of codes.filter((_, index) => index % 2 === 0)) {
      await database.affected("INSERT INTO items (code, name, owner_user_id, claimed_at, version) VALUES ($1, 'Keys', $2, now(), 1)", [code, randomUUID()]);
    }
    await database.affected('INSERT INTO item_co_owners (item_code, user_id) VALUES ($1, $2)', [codes[0], coOwner]);
  });

  afterAll(async () => {
    await database?.onApplicationShutdown();
    await dropSchemas(infra.databaseUrl, [schema]);
  });

  const found = async (asked: string[]) => (await items.findByCodes(asked)).map((row) => row.code).sort();

  it('finds exactly the existing codes of a batch of any size, unknown and repeated codes included', async () => {
    for (const size of [1, 2, 3, 5, 9, 17, 33, 65, PUBLIC_ITEMS_BATCH_MAX]) {
      const asked = codes.slice(0, size);
      expect(await found(asked)).toEqual(asked.filter((_, index) => index % 2 === 0).sort());
    }
    expect(await found([codes[3], codes[2], codes[3], codes[2]])).toEqual([codes[2]]);
    expect(await found([codes[1]])).toEqual([]);
    expect(await items.findByCodes([])).toEqual([]);
    const [first] = await items.findByCodes([codes[0], codes[1]]);
    expect(first).toMatchObject({ code: codes[0], name: 'Keys', co_owner_user_ids: [coOwner] });
  });

  it('refuses more codes than a batch may hold', async () => {
    await expect(items.findByCodes(codes.slice(0, PUBLIC_ITEMS_BATCH_MAX + 1))).rejects.toThrow(RangeError);
  });

  it('runs a few statements of fixed sizes on their generic plans, not a plan made for each batch', async () => {
    // Batches of 1 to 4 codes, ten of each: statements of 1, 2 and 4 codes.
    for (let round = 0; round < 10; round += 1) {
      for (const size of [1, 2, 3, 4]) await items.findByCodes(codes.slice(round, round + size));
    }
    const statements = await database.rows<{ name: string; generic_plans: string; custom_plans: string }>(
      "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'items_find_by_codes%' ORDER BY name",
    );
    const names = statements.map(({ name }) => name);
    expect(names.length).toBeLessThanOrEqual(FIND_BY_CODES_SIZES.length);
    for (const size of [1, 2, 4]) expect(names).toContain(`items_find_by_codes_${size}`);
    // PostgreSQL tries five custom plans before it weighs the generic one; every later execution runs the generic plan.
    for (const name of ['items_find_by_codes_1', 'items_find_by_codes_2', 'items_find_by_codes_4']) {
      const statement = statements.find((row) => row.name === name);
      expect(Number(statement?.generic_plans)).toBeGreaterThan(Number(statement?.custom_plans));
    }
  });
});
