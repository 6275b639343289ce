#!/usr/bin/env node
// B3's floor: the plain pipeline a finder's message takes, with the libraries directly and nothing else:
// POST /messages → pg insert → JetStream publish → a pull consumer → a BullMQ job → a BullMQ worker → nodemailer's
// pooled SMTP transport. Env: PORT, DATABASE_URL, DATABASE_SCHEMA (created), NATS_URL, REDIS_URL, SMTP_URL, STREAM.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Queue, Worker } from 'bullmq';
import Fastify from 'fastify';
import IORedis from 'ioredis';
import nodemailer from 'nodemailer';
import pg from 'pg';

const { PORT, DATABASE_URL, DATABASE_SCHEMA: schema, NATS_URL, REDIS_URL, SMTP_URL, STREAM } = process.env;
const subject = `${STREAM}.message.created`;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".messages (id bigserial PRIMARY KEY, item_code text NOT NULL, recipient text NOT NULL, content text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);

const nc = await connect({ servers: NATS_URL });
const jsm = await jetstreamManager(nc);
await jsm.streams.add({ name: STREAM, subjects: [`${STREAM}.>`] });
await jsm.consumers.add(STREAM, { durable_name: 'mail', ack_policy: 'explicit', filter_subject: subject });
const js = jetstream(nc);

const connection = { connection: new IORedis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: STREAM };
const queue = new Queue('email', connection);
// The product's pool settings (apps/notifications' SmtpRepository): connections kept, not retired every 100 mails, so
// neither side's tail is a new connection's handshake and the sink's 100 ms greeting pause.
const transport = nodemailer.createTransport({ url: SMTP_URL, pool: true, maxConnections: 5, maxMessages: Infinity });
new Worker(
  'email',
  async (job) => {
    await transport.sendMail({ from: 'Homing <bench@homing.test>', to: job.data.recipient, subject: 'Someone found your item', text: `A finder wrote about ${job.data.itemCode}.` });
  },
  { ...connection, connection: new IORedis(REDIS_URL, { maxRetriesPerRequest: null }), concurrency: 10 },
);

const consumer = await js.consumers.get(STREAM, 'mail');
void (async () => {
  for await (const msg of await consumer.consume()) {
    const event = msg.json();
    await queue.add('owner-message', event, { jobId: `email_${event.id}`, removeOnComplete: { age: 3600 } });
    msg.ack();
  }
})();

const app = Fastify();
app.post('/messages', async (request, reply) => {
  const { itemCode, recipient, content } = request.body;
  const { rows } = await pool.query(`INSERT INTO "${schema}".messages (item_code, recipient, content) VALUES ($1, $2, $3) RETURNING id`, [itemCode, recipient, content]);
  await js.publish(subject, JSON.stringify({ id: rows[0].id, itemCode, recipient }), { msgID: String(rows[0].id) });
  return reply.code(201).send({ id: Number(rows[0].id) });
});
app.get('/health/ready', async () => ({ status: 'ok' }));
await app.listen({ port: Number(PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
