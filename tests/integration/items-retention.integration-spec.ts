import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { dropSchemas, ensureDatabase, isolatedName, runServiceCommand, testInfra } from '@homing/testing';

// items' retention rules, run by `purge-expired --now` against a schema of this test's own: scans either side of the
// 30 days an owner sees them (SCAN_HISTORY_DAYS), and invitations either side of 30 days after they closed.
const infra = testInfra();
const schema = `items_${isolatedName()}`;
const env = { NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: infra.databaseUrl, DATABASE_SCHEMA: schema, RETENTION_BATCH_SIZE: '1' };
const now = new Date('2030-06-01T12:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 24 * 60 * 60_000);
const CODE = 'ABCDEFGHJKMNPQRS';
let db: Client;

beforeAll(async () => {
  await ensureDatabase(infra.databaseUrl);
  await runServiceCommand('items', ['migrate'], env);
  db = new Client({ connectionString: infra.databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
  await db.query('INSERT INTO items (code, name, owner_user_id, claimed_at, version) VALUES ($1, $2, $3, $4, 1)', [CODE, 'Keys', randomUUID(), daysAgo(100)]);
});

afterAll(async () => {
  await db?.end();
  await dropSchemas(infra.databaseUrl, [schema]);
});

it('erases scans older than 30 days and invitations closed over 30 days ago, and keeps the newer ones', async () => {
  const scan = async (days: number) => {
    const id = randomUUID();
    await db.query("INSERT INTO scans (id, item_code, scanned_at, city, country, device_kind) VALUES ($1, $2, $3, 'Arnhem', 'NL', 'phone')", [id, CODE, daysAgo(days)]);
    return id;
  };
  await scan(45);
  await scan(30.01);
  const kept = [await scan(29.99), await scan(1)];
  const invitation = async (closedDaysAgo: number) =>
    db.query("INSERT INTO item_invitations (id, item_code, kind, email, token_hash, invited_by, expires_at, accepted_at) VALUES ($1, $2, 'co-owner', 'friend@example.test', $3, $4, $5, $5)", [
      randomUUID(),
      CODE,
      randomUUID(),
      randomUUID(),
      daysAgo(closedDaysAgo),
    ]);
  await invitation(31);
  await invitation(10);

  const output = await runServiceCommand('items', ['purge-expired', '--now', now.toISOString()], env);

  expect((await db.query<{ id: string }>('SELECT id::text FROM scans')).rows.map(({ id }) => id).sort()).toEqual(kept.sort());
  expect(output.trim().split('\n')).toEqual(['items: retention scans-expired: purged 2', 'items: retention invitations-closed: purged 1']);
});
