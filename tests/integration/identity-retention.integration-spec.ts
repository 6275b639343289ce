import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { dropSchemas, ensureDatabase, isolatedName, runServiceCommand, testInfra } from '@homing/testing';

// identity's retention rules, run by `purge-expired --now` against a schema of this test's own: the clock is moved
// by the command's argument, so rows just past and just within each limit tell what each rule takes.
const infra = testInfra();
const schema = `identity_${isolatedName()}`;
const env = { NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: infra.databaseUrl, DATABASE_SCHEMA: schema, RETENTION_BATCH_SIZE: '2' };
const now = new Date('2030-06-01T12:00:00Z');
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
let db: Client;

async function newUser(): Promise<string> {
  const id = randomUUID();
  await db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [id, `${id}@example.test`]);
  return id;
}

async function ids(sql: string): Promise<string[]> {
  return (await db.query<{ id: string }>(sql)).rows.map((row) => row.id).sort();
}

beforeAll(async () => {
  await ensureDatabase(infra.databaseUrl);
  await runServiceCommand('identity', ['migrate'], env);
  db = new Client({ connectionString: infra.databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await dropSchemas(infra.databaseUrl, [schema]);
});

it('deletes sessions past their 30-day lifetime, login codes and password links used or long expired, expired passkey challenges and mail-limit rows past their window; keeps the rest', async () => {
  const user = await newUser();
  const session = async (createdAt: Date, revokedAt: Date | null = null) => {
    const id = randomUUID();
    await db.query('INSERT INTO sessions (id, user_id, current_jti, created_at, last_used_at, revoked_at) VALUES ($1, $2, $3, $4, $4, $5)', [id, user, randomUUID(), createdAt, revokedAt]);
    return id;
  };
  // Three past the lifetime, more than one batch of two: the purge goes on until none is left.
  for (const createdAt of [at(-31 * DAY), at(-30 * DAY - MINUTE)]) await session(createdAt);
  await session(at(-400 * DAY), at(-399 * DAY));
  const young = [await session(at(-30 * DAY + MINUTE)), await session(at(-DAY), at(-HOUR))];

  const codeOf = async (expiresAt: Date, usedAt: Date | null) => {
    const owner = await newUser();
    await db.query('INSERT INTO login_codes (user_id, locator, code_hash, expires_at, used_at) VALUES ($1, $2, $3, $4, $5)', [owner, 'AB', randomBytes(32).toString('hex'), expiresAt, usedAt]);
    return owner;
  };
  await codeOf(at(5 * MINUTE), at(-MINUTE));
  await codeOf(at(-DAY - MINUTE), null);
  const liveCode = await codeOf(at(5 * MINUTE), null);
  // Expired within the last day: kept, so opening it still answers "expired", not "not valid".
  const lateCode = await codeOf(at(-DAY + MINUTE), null);

  const link = async (expiresAt: Date, usedAt: Date | null, purpose = 'reset') => {
    const hash = randomBytes(32).toString('hex');
    await db.query('INSERT INTO password_tokens (token_hash, user_id, purpose, expires_at, used_at) VALUES ($1, $2, $3, $4, $5)', [hash, user, purpose, expiresAt, usedAt]);
    return hash;
  };
  await link(at(30 * MINUTE), at(-MINUTE));
  await link(at(-7 * DAY - MINUTE), null, 'set');
  const liveLink = await link(at(6 * DAY), null, 'set');
  const lateLink = await link(at(-7 * DAY + MINUTE), null);

  await db.query("INSERT INTO mail_sends (user_id, kind, sent_at) VALUES ($1, 'login-code', $2), ($1, 'login-code', $3)", [user, at(-24 * HOUR - MINUTE), at(-23 * HOUR)]);

  // Passkey ceremonies: three expired (more than a batch), one still open.
  const challenge = async (expiresAt: Date) => {
    const value = randomBytes(32).toString('base64url');
    await db.query("INSERT INTO passkey_challenges (challenge, purpose, expires_at) VALUES ($1, 'login', $2)", [value, expiresAt]);
    return value;
  };
  for (const expiresAt of [at(-MINUTE), at(-HOUR), at(-DAY)]) await challenge(expiresAt);
  const openChallenge = await challenge(at(4 * MINUTE));

  const output = await runServiceCommand('identity', ['purge-expired', '--now', now.toISOString()], env);

  expect(await ids('SELECT id FROM sessions')).toEqual([...young].sort());
  expect(await ids('SELECT user_id AS id FROM login_codes')).toEqual([liveCode, lateCode].sort());
  expect(await ids('SELECT token_hash AS id FROM password_tokens')).toEqual([liveLink, lateLink].sort());
  expect(await ids('SELECT challenge AS id FROM passkey_challenges')).toEqual([openChallenge]);
  expect((await db.query<{ sent_at: Date }>('SELECT sent_at FROM mail_sends')).rows.map((row) => row.sent_at.toISOString())).toEqual([at(-23 * HOUR).toISOString()]);
  // Rule names and counts only: no id, address or hash.
  expect(output.trim().split('\n')).toEqual([
    'identity: retention sessions-past-lifetime: purged 3',
    'identity: retention login-codes-used-or-expired: purged 2',
    'identity: retention password-tokens-used-or-expired: purged 2',
    'identity: retention passkey-challenges-expired: purged 3',
    'identity: retention mail-sends-past-window: purged 1',
  ]);

  // Run again: nothing left to purge, and what is kept stays.
  const again = await runServiceCommand('identity', ['purge-expired', '--now', now.toISOString()], env);
  expect(again).toContain('identity: retention sessions-past-lifetime: purged 0');
  expect(await ids('SELECT id FROM sessions')).toEqual([...young].sort());
});

it('refuses a --now that is not a time, and changes nothing', async () => {
  await expect(runServiceCommand('identity', ['purge-expired', '--now', 'next-year'], env)).rejects.toThrow(/--now needs an ISO time/);
});
