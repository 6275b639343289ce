#!/usr/bin/env node
// B1's floor: bare Fastify + a pg Pool answering the tag scan with the same named prepared query on the same table
// as items, with no NATS hop, no Nest and no middleware. Env: PORT, DATABASE_URL, DATABASE_SCHEMA, APPLICATION_NAME.
import Fastify from 'fastify';
import pg from 'pg';

// The same statement as apps/items/src/items/items.repository.ts, so both sides plan and run identical SQL.
const FIND_BY_CODE = {
  name: 'items_find_by_code',
  text: 'SELECT code, name, reward_cents, owner_user_id, claimed_at FROM items WHERE code = $1',
};

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  application_name: process.env.APPLICATION_NAME ?? 'bench-baseline',
  options: `-c search_path=${process.env.DATABASE_SCHEMA}`,
  max: 10,
});
const app = Fastify();

app.get('/api/v1/items/:code', async (request, reply) => {
  const code = request.params.code.toUpperCase().replace(/-/g, '');
  const { rows } = await pool.query({ ...FIND_BY_CODE, values: [code] });
  if (!rows[0]) return reply.code(404).send({ response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' });
  const { name, reward_cents, claimed_at } = rows[0];
  return { code, name, reward: reward_cents, claimed_at, activated: claimed_at !== null, is_owner: false };
});
// B2's floor, and what B1's cached figure would be with no framework: the same answer from a Map filled from the same
// query on first use (a code checked as the gateway checks it), so a repeated scan is validation, a lookup and JSON.
const TAG_CODE = /^[0-9A-HJKMNP-TV-Z]{16}$/;
const remembered = new Map();
app.get('/memory/api/v1/items/:code', async (request, reply) => {
  const code = request.params.code.toUpperCase().replace(/-/g, '');
  if (!TAG_CODE.test(code)) return reply.code(404).send({ response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' });
  let item = remembered.get(code);
  if (!item) {
    const { rows } = await pool.query({ ...FIND_BY_CODE, values: [code] });
    if (!rows[0]) return reply.code(404).send({ response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' });
    const { name, reward_cents, claimed_at } = rows[0];
    item = { code, name, reward: reward_cents, claimed_at, activated: claimed_at !== null, is_owner: false };
    remembered.set(code, item);
  }
  return item;
});
// B6's static route: one SVG of a QR image held in memory, sent with the headers the gateway's cached /qr sends.
const STATIC_SVG = Buffer.from(process.env.STATIC_SVG ?? '<svg xmlns="http://www.w3.org/2000/svg"/>');
app.get('/static/qr.svg', async (request, reply) =>
  reply.header('content-type', 'image/svg+xml; charset=utf-8').header('cache-control', 'public, max-age=604800').header('etag', '"static"').send(STATIC_SVG),
);
// B4's floor: an in-process "anything new since message id N?" handler for an owner's poll: the bearer token verified
// as the gateway verifies a token it has not seen (ES256, issuer, audience) on every poll, then the newest message id
// per item from memory (POLL_LATEST_FILE: {code: id}). The gateway remembers a token it verified (VerifiedTokens), so
// it no longer does this work on every poll: docs/benchmarks.md says what the ratio compares since.
if (process.env.POLL_LATEST_FILE) {
  const { default: jwt } = await import('jsonwebtoken');
  const { readFileSync } = await import('node:fs');
  const latest = new Map(Object.entries(JSON.parse(readFileSync(process.env.POLL_LATEST_FILE, 'utf8'))));
  const { createPublicKey } = await import('node:crypto');
  // Parsed once, as the gateway does: jsonwebtoken given the PEM text would parse it on every call.
  const publicKey = createPublicKey(process.env.JWT_PUBLIC_KEY);
  app.get('/poll/api/v1/items/:code/messages', async (request, reply) => {
    try {
      jwt.verify((request.headers.authorization ?? '').slice('Bearer '.length), publicKey, { algorithms: ['ES256'], issuer: 'homing-identity', audience: 'homing' });
    } catch {
      return reply.code(401).send({ response_code: 'UNAUTHORIZED', message: 'Not logged in.' });
    }
    const after = Number(request.query.after);
    if (Number.isInteger(after) && after >= (latest.get(request.params.code) ?? Infinity)) return [];
    return reply.code(500).send({ response_code: 'NOT_MEASURED', message: 'Only empty polls are measured.' });
  });
}
app.get('/health/ready', async () => ({ status: 'ok' }));

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
