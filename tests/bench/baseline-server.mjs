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
app.get('/health/ready', async () => ({ status: 'ok' }));

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
