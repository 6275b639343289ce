import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { dropSchemas, ensureDatabase, isolatedName, runServiceCommand, testInfra } from '@homing/testing';

// messaging's retention rules, run by `purge-expired --now` against a schema of this test's own: conversations
// just past and just within CONVERSATION_RETENTION_DAYS (100 here), conversations closed by a hand-over either side of
// FINDER_DATA_RETENTION_DAYS (30), and resume tokens either side of 30 idle days.
const infra = testInfra();
const schema = `messaging_${isolatedName()}`;
const env = { NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: infra.databaseUrl, DATABASE_SCHEMA: schema, CONVERSATION_RETENTION_DAYS: '100', RETENTION_BATCH_SIZE: '1' };
const now = new Date('2030-06-01T12:00:00Z');
const DAY = 24 * 60 * 60_000;
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY);
let db: Client;

const hash = () => randomBytes(32).toString('base64url');

/** A conversation begun `begunDaysAgo` with a finder message `lastDaysAgo` (none if null), a finder token and a resume token. */
async function conversation(begunDaysAgo: number, lastDaysAgo: number | null): Promise<string> {
  const id = randomUUID();
  const last = lastDaysAgo === null ? null : daysAgo(lastDaysAgo);
  await db.query('INSERT INTO conversations (id, item_code, finder_token_hash, finder_email, created_at, last_message_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    id,
    'ABCDEFGHJKMNPQRS',
    hash(),
    `finder-${id}@example.test`,
    daysAgo(begunDaysAgo),
    last,
  ]);
  if (last) await db.query("INSERT INTO messages (conversation_id, author, content, created_at) VALUES ($1, 'finder', 'I found your keys', $2)", [id, last]);
  await db.query("INSERT INTO finder_tokens (token_hash, conversation_id, purpose, created_at) VALUES ($1, $2, 'finder', $3), ($4, $2, 'resume', $3)", [hash(), id, daysAgo(begunDaysAgo), hash()]);
  return id;
}

async function rows(sql: string): Promise<string[]> {
  return (await db.query<{ row: string }>(sql)).rows.map(({ row }) => row).sort();
}

beforeAll(async () => {
  await ensureDatabase(infra.databaseUrl);
  await runServiceCommand('messaging', ['migrate'], env);
  db = new Client({ connectionString: infra.databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await dropSchemas(infra.databaseUrl, [schema]);
});

it('erases conversations silent past CONVERSATION_RETENTION_DAYS with their messages, address and tokens, and resume tokens idle past 30 days', async () => {
  const silentLong = await conversation(300, 101);
  const silentNoMessage = await conversation(100.5, null);
  const quietButKept = await conversation(300, 99);
  const recent = await conversation(60, 29);
  const handedOverLongAgo = await conversation(40, 31);
  const handedOverLately = await conversation(40, 31);
  await db.query('UPDATE conversations SET closed_at = $2 WHERE id = $1', [handedOverLongAgo, daysAgo(30.5)]);
  await db.query('UPDATE conversations SET closed_at = $2 WHERE id = $1', [handedOverLately, daysAgo(29.5)]);

  const output = await runServiceCommand('messaging', ['purge-expired', '--now', now.toISOString()], env);

  expect(await rows('SELECT id::text AS row FROM conversations')).toEqual([quietButKept, recent, handedOverLately].sort());
  expect(await rows('SELECT DISTINCT conversation_id::text AS row FROM messages')).toEqual([quietButKept, recent, handedOverLately].sort());
  expect(await rows("SELECT conversation_id::text || ':' || purpose AS row FROM finder_tokens")).toEqual(
    [`${quietButKept}:finder`, `${recent}:finder`, `${recent}:resume`, `${handedOverLately}:finder`].sort(),
  );
  expect(output.trim().split('\n')).toEqual([
    'messaging: retention conversations-silent: purged 2',
    'messaging: retention conversations-handed-over: purged 1',
    'messaging: retention resume-tokens-idle: purged 2',
  ]);
  // Each purged conversation is told (ids only), so notifications drops its finder's push subscriptions.
  const erased = (await db.query<{ envelope: { data: { itemCode: string; conversationIds: string[] } } }>("SELECT envelope FROM outbox WHERE subject = 'messaging.conversations.erased.v1'")).rows;
  expect(erased.flatMap(({ envelope }) => envelope.data.conversationIds).sort()).toEqual([silentLong, silentNoMessage, handedOverLongAgo].sort());
  expect(erased.every(({ envelope }) => envelope.data.itemCode === 'ABCDEFGHJKMNPQRS')).toBe(true);
});
