import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { dropSchemas, ensureDatabase, isolatedName, runServiceCommand, testInfra } from '@homing/testing';

// notifications' retention rules, run by `purge-expired --now` against a schema of this test's own: delivery rows
// either side of DELIVERY_RETENTION_DAYS (20 here), and mail windows either side of their 15 minutes plus the
// events stream's age (JETSTREAM_EVENTS_MAX_AGE_HOURS, 2 here).
const infra = testInfra();
const schema = `notifications_${isolatedName()}`;
const env = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  DATABASE_URL: infra.databaseUrl,
  DATABASE_SCHEMA: schema,
  DELIVERY_RETENTION_DAYS: '20',
  JETSTREAM_EVENTS_MAX_AGE_HOURS: '2',
};
const now = new Date('2030-06-01T12:00:00Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const ago = (ms: number) => new Date(now.getTime() - ms);
let db: Client;

async function rows(sql: string): Promise<string[]> {
  return (await db.query<{ row: string }>(sql)).rows.map(({ row }) => row).sort();
}

beforeAll(async () => {
  await ensureDatabase(infra.databaseUrl);
  await runServiceCommand('notifications', ['migrate'], env);
  db = new Client({ connectionString: infra.databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await dropSchemas(infra.databaseUrl, [schema]);
});

it('deletes delivery rows older than DELIVERY_RETENTION_DAYS and mail windows no event can fall in any more; keeps the rest', async () => {
  const delivery = async (jobId: string, createdAt: Date) =>
    db.query("INSERT INTO deliveries (job_id, channel, kind, status, created_at, updated_at, sent_at) VALUES ($1, 'email', 'new-message', 'sent', $2, $2, $2)", [jobId, createdAt]);
  await delivery(`email_${randomUUID()}_old`, ago(20 * DAY + MINUTE));
  await delivery(`email_${randomUUID()}_older`, ago(400 * DAY));
  const kept = `email_${randomUUID()}_kept`;
  await delivery(kept, ago(20 * DAY - MINUTE));

  const window = async (startedAt: Date) => {
    const conversationId = randomUUID();
    await db.query('INSERT INTO message_mail_windows (conversation_id, event_id, started_at, message_id) VALUES ($1, $2, $3, 1)', [conversationId, randomUUID(), startedAt]);
    return conversationId;
  };
  await window(ago(2 * 60 * MINUTE + 15 * MINUTE + MINUTE));
  const recentWindow = await window(ago(2 * 60 * MINUTE + 15 * MINUTE - MINUTE));
  const scanWindow = async (startedAt: Date, itemCode: string) => {
    await db.query('INSERT INTO scan_alert_windows (item_code, event_id, scan_id, started_at) VALUES ($1, $2, $3, $4)', [itemCode, randomUUID(), randomUUID(), startedAt]);
    return itemCode;
  };
  await scanWindow(ago(2 * 60 * MINUTE + 15 * MINUTE + MINUTE), 'ABCD1234EFGH5678');
  const recentScanWindow = await scanWindow(ago(2 * 60 * MINUTE + 15 * MINUTE - MINUTE), 'WXYZ1234EFGH5678');

  const output = await runServiceCommand('notifications', ['purge-expired', '--now', now.toISOString()], env);

  expect(await rows('SELECT job_id AS row FROM deliveries')).toEqual([kept]);
  expect(await rows('SELECT conversation_id::text AS row FROM message_mail_windows')).toEqual([recentWindow]);
  expect(await rows('SELECT item_code AS row FROM scan_alert_windows')).toEqual([recentScanWindow]);
  expect(output.trim().split('\n')).toEqual([
    'notifications: retention deliveries-past-retention: purged 2',
    'notifications: retention message-mail-windows-closed: purged 1',
    'notifications: retention scan-alert-windows-closed: purged 1',
  ]);
});
