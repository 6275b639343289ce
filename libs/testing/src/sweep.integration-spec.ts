import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';
import { testInfra } from './infra';
import { createDatabase, databaseNameOf, dropDatabase, dropSchemas, ensureDatabase, isolatedName } from './isolation';
import { firstSeenComment, sweepLeftoverDatabases, sweepLeftoverSchemas, sweepLeftoverStreams, SWEEP_AFTER_MS } from './sweep';

// Other runs may be using the shared services right now: every sweep here is narrowed to this test's own names.
describe('sweeping leftovers of aborted test runs', () => {
  const infra = testInfra();
  const [oldName, recentName, newName] = [isolatedName(), isolatedName(), isolatedName()];
  const ours = (name: string) => [oldName, recentName, newName].some((id) => name.toLowerCase().endsWith(`_${id}`) || name.startsWith(`${id.toUpperCase()}_`));
  let db: Client;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  const schemaExists = async (name: string) => (await db.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name])).rowCount === 1;
  const streamExists = (name: string) => jsm.streams.info(name).then(() => true, () => false);

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
    nc = await connect({ servers: infra.natsUrl });
    jsm = await jetstreamManager(nc);
  });

  afterAll(async () => {
    await dropSchemas(infra.databaseUrl, [oldName, recentName, newName].map((id) => `items_${id}`));
    for (const id of [oldName, newName]) await jsm.streams.delete(`${id.toUpperCase()}_HOMING_EVENTS`).catch(() => false);
    await nc.drain();
    await db.end();
  });

  it('drops only the schemas it first saw over an hour ago, and notes when it first saw the others', async () => {
    const now = Date.now();
    await db.query(`CREATE SCHEMA "items_${oldName}"`);
    await db.query(`COMMENT ON SCHEMA "items_${oldName}" IS '${firstSeenComment(now - SWEEP_AFTER_MS - 60_000)}'`);
    await db.query(`CREATE SCHEMA "items_${recentName}"`);
    await db.query(`COMMENT ON SCHEMA "items_${recentName}" IS '${firstSeenComment(now - SWEEP_AFTER_MS + 60_000)}'`);
    await db.query(`CREATE SCHEMA "items_${newName}"`);

    expect(await sweepLeftoverSchemas(infra.databaseUrl, { now, only: ours })).toEqual([`items_${oldName}`]);
    expect(await schemaExists(`items_${oldName}`)).toBe(false);
    expect(await schemaExists(`items_${recentName}`)).toBe(true);
    expect(await schemaExists(`items_${newName}`)).toBe(true);

    // An hour after the sweep first saw it, the new one goes too.
    expect(await sweepLeftoverSchemas(infra.databaseUrl, { now: now + SWEEP_AFTER_MS + 1000, only: ours })).toEqual(
      expect.arrayContaining([`items_${recentName}`, `items_${newName}`]),
    );
  });

  it('drops only the stack databases it first saw over an hour ago', async () => {
    const now = Date.now();
    const databaseOf = (id: string) => `${databaseNameOf(infra.databaseUrl)}_${id}`;
    const databaseExists = async (name: string) => (await db.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    const [older, newer] = [databaseOf(oldName), databaseOf(newName)];
    try {
      await createDatabase(infra.databaseUrl, older);
      await db.query(`COMMENT ON DATABASE "${older}" IS '${firstSeenComment(now - SWEEP_AFTER_MS - 60_000)}'`);
      await createDatabase(infra.databaseUrl, newer);

      expect(await sweepLeftoverDatabases(infra.databaseUrl, { now, only: ours })).toEqual([older]);
      expect(await databaseExists(older)).toBe(false);
      expect(await databaseExists(newer)).toBe(true);
      expect(await sweepLeftoverDatabases(infra.databaseUrl, { now: now + SWEEP_AFTER_MS + 1000, only: ours })).toEqual([newer]);
    } finally {
      await Promise.all([older, newer].map((name) => dropDatabase(infra.databaseUrl, name)));
    }
  });

  it('deletes only the streams created over an hour ago', async () => {
    const older = await jsm.streams.add({ name: `${oldName.toUpperCase()}_HOMING_EVENTS`, subjects: [`${oldName}.>`] });
    // JetStream sets `created`; the two streams must differ in it for "now" to fall between them.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const newer = await jsm.streams.add({ name: `${newName.toUpperCase()}_HOMING_EVENTS`, subjects: [`${newName}.>`] });
    const between = (Date.parse(older.created) + Date.parse(newer.created)) / 2;

    expect(await sweepLeftoverStreams(infra.natsUrl, { now: between + SWEEP_AFTER_MS, only: ours })).toEqual([older.config.name]);
    expect(await streamExists(older.config.name)).toBe(false);
    expect(await streamExists(newer.config.name)).toBe(true);
  });
});
