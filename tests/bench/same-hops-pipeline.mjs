#!/usr/bin/env node
// B3's and B5's second reference: a finder's message through the product's hops and guarantees, written with the
// libraries directly (Fastify, nats.js, pg, ioredis, BullMQ, handlebars, nodemailer) and nothing of the product's
// own: no Nest, TypeORM, zod, request context, metrics or logs. Where the plain pipeline (pipeline-baseline.mjs) is
// the floor of the work a message needs, this is the floor of the work the architecture asks of it, so the product's
// ratio to it is its own overhead (docs/benchmarks.md, "Left to do"). Four processes, as the product's path has:
//   edge      POST /items/{code}/messages: the body checked, the per-address and per-tag limits counted in one Redis
//             script, the message asked of `messages` over NATS request/reply (the HTTP edge in front of the services).
//   messages  the message, its conversation and its event in one statement, in the Idempotency-Key's transaction (the
//             key claimed, the answer stored sealed); the event published to JetStream as it commits and marked
//             published (the transactional outbox); the owner's unread check, minting the mail's reply token; the
//             mail's delivery receipt consumed once (a ledger row in the receipt's statement).
//   users     a user's address and language by id (no personal data in events or jobs: the worker asks).
//   mail      the event consumed once (its ledger row and the item's people in one statement), a BullMQ job per
//             person; the worker claims the delivery row (with the person's standing, side by side) before it asks
//             the address and the unread check (side by side), renders the mail (HTML and text, Reply-To, Message-ID)
//             with handlebars, hands it to nodemailer's pool, and stamps the row with the receipt's event.
// Left out, as work a message does not wait for: the relay round that publishes an event whose publication at commit
// failed (here such a mail would count as lost), retries, dead letters, purges. A repeated Idempotency-Key is refused
// rather than answered with the first answer: the bench sends each key once.
// Env: ROLE (edge, messages, users, mail, or setup: the tables), PORT (edge), DATABASE_URL, DATABASE_SCHEMA, NATS_URL,
// REDIS_URL, SMTP_URL, STREAM (the JetStream stream, also the subjects' and BullMQ's prefix).
import { createCipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Queue, Worker } from 'bullmq';
import Fastify from 'fastify';
import Handlebars from 'handlebars';
import IORedis from 'ioredis';
import nodemailer from 'nodemailer';
import pg from 'pg';

const { ROLE, PORT, DATABASE_URL, DATABASE_SCHEMA: schema, NATS_URL, REDIS_URL, SMTP_URL, STREAM } = process.env;
const s = `"${schema}"`;
const subjects = { post: `${STREAM}.rpc.post`, unread: `${STREAM}.rpc.unread`, user: `${STREAM}.rpc.user`, ready: (role) => `${STREAM}.rpc.ready.${role}`, created: `${STREAM}.message.created`, receipt: `${STREAM}.message.receipt` };
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });

if (ROLE === 'setup') {
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
  await pool.query(`
    CREATE TABLE ${s}.items (code text PRIMARY KEY, owner_id uuid NOT NULL);
    CREATE TABLE ${s}.users (id uuid PRIMARY KEY, email text NOT NULL, language text NOT NULL, password_hash text);
    CREATE TABLE ${s}.item_people (code text NOT NULL, user_id uuid NOT NULL, email_on boolean NOT NULL DEFAULT true, PRIMARY KEY (code, user_id));
    CREATE TABLE ${s}.conversations (id uuid PRIMARY KEY, item_code text NOT NULL, finder_token_hash text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE ${s}.messages (id bigserial PRIMARY KEY, conversation_id uuid NOT NULL REFERENCES ${s}.conversations, author text NOT NULL, content text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(), read_at timestamptz, delivered_at timestamptz);
    CREATE TABLE ${s}.reply_tokens (hash text PRIMARY KEY, conversation_id uuid NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE ${s}.outbox (id bigserial PRIMARY KEY, subject text NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz);
    CREATE TABLE ${s}.idempotency_keys (scope text NOT NULL, key text NOT NULL, request_hash text NOT NULL, response text, created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (scope, key));
    CREATE TABLE ${s}.ledger (consumer text NOT NULL, event_id text NOT NULL, PRIMARY KEY (consumer, event_id));
    CREATE TABLE ${s}.deliveries (job_id text PRIMARY KEY, status text NOT NULL, claim_token uuid, claimed_until timestamptz, sent_at timestamptz)`);
  await pool.end();
  // The events' stream (request/reply subjects stay outside it).
  const nc = await connect({ servers: NATS_URL });
  await (await jetstreamManager(nc)).streams.add({ name: STREAM, subjects: [`${STREAM}.message.>`] });
  await nc.close();
  process.exit(0);
}

const nc = await connect({ servers: NATS_URL });
const js = jetstream(nc);
const json = (value) => JSON.stringify(value);
/** Answers `ready.<role>` so the edge's /health/ready knows every role is up. */
const answerReady = (role) => nc.subscribe(subjects.ready(role), { callback: (_error, msg) => msg.respond('ok') });
/** Serves one request/reply subject from a queue group: the handler's answer, or `{ error }`. */
function serve(subject, handler) {
  nc.subscribe(subject, {
    queue: ROLE,
    callback: (_error, msg) =>
      void handler(msg.json()).then(
        (answer) => msg.respond(json(answer)),
        (error) => msg.respond(json({ error: error.message })),
      ),
  });
}
/** Publishes an outbox row to JetStream as its transaction committed, then marks it published. */
async function publishCommitted(row) {
  await js.publish(row.payload.subject, json(row.payload), { msgID: `outbox-${row.id}` });
  await pool.query(`UPDATE ${s}.outbox SET published_at = now() WHERE id = $1`, [row.id]);
}
/** A durable pull consumer of `subject`, each event handled once its turn comes, then acknowledged. */
async function consume(durable, subject, handle) {
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.add(STREAM, { durable_name: durable, ack_policy: 'explicit', filter_subject: subject });
  const consumer = await js.consumers.get(STREAM, durable);
  void (async () => {
    for await (const msg of await consumer.consume()) {
      await handle(msg.json());
      msg.ack();
    }
  })();
}

if (ROLE === 'edge') {
  const redis = new IORedis(REDIS_URL);
  // The per-address-per-tag and per-tag counts of an hour's window, one round trip (the product's MESSAGE_LIMITS).
  redis.defineCommand('countInWindow', {
    numberOfKeys: 2,
    lua: `local counts = {}
      for i, key in ipairs(KEYS) do
        counts[i] = redis.call('INCR', key)
        if counts[i] == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
      end
      return counts`,
  });
  const app = Fastify({ trustProxy: '127.0.0.1' });
  app.post('/items/:code/messages', async (request, reply) => {
    const { code } = request.params;
    const content = typeof request.body?.content === 'string' ? request.body.content.trim() : '';
    if (!/^[A-Za-z0-9-]{4,40}$/.test(code) || content.length === 0 || content.length > 2000) return reply.code(400).send({ response_code: 'VALIDATION_FAILED' });
    const tagKey = `${STREAM}:messages:${code}`;
    const [perAddress, perTag] = await redis.countInWindow(`${tagKey}:${request.ip}`, tagKey, 3_600_000);
    if (perAddress > 20 || perTag > 200) return reply.code(429).send({ response_code: 'RATE_LIMITED' });
    const key = request.headers['idempotency-key'];
    const answer = (await nc.request(subjects.post, json({ code, content, key, address: request.ip }), { timeout: 5000 })).json();
    if (answer.error) return reply.code(answer.error === 'ITEM_NOT_FOUND' ? 404 : 500).send({ response_code: answer.error });
    return reply.code(201).send(answer);
  });
  app.get('/health/ready', async (_request, reply) => {
    try {
      await Promise.all(['messages', 'users', 'mail'].map((role) => nc.request(subjects.ready(role), '', { timeout: 500 })));
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'starting' });
    }
  });
  await app.listen({ port: Number(PORT), host: '127.0.0.1' });
}

if (ROLE === 'messages') {
  const sha256 = (value) => createHash('sha256').update(value).digest('hex');
  /** The first answer, sealed with a key only the caller holds (their Idempotency-Key), as the product keeps it. */
  const seal = (answer, key, scope) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(hkdfSync('sha256', key, scope, 'answer', 32)), iv);
    const sealed = Buffer.concat([cipher.update(json(answer), 'utf8'), cipher.final()]);
    return [iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join('.');
  };
  // A finder's first message: the item found, its conversation opened, the message and its event, one statement.
  const FIRST_MESSAGE = `
    WITH item AS (SELECT code, owner_id FROM ${s}.items WHERE code = $1),
    conversation AS (INSERT INTO ${s}.conversations (id, item_code, finder_token_hash) SELECT $2, code, $3 FROM item RETURNING id),
    message AS (INSERT INTO ${s}.messages (conversation_id, author, content) SELECT id, 'finder', $4 FROM conversation RETURNING id, content, created_at),
    event AS (INSERT INTO ${s}.outbox (subject, payload)
      SELECT $5, json_build_object('subject', $5::text, 'messageId', message.id, 'conversationId', $2::uuid, 'itemCode', item.code) FROM message, item RETURNING id, payload)
    SELECT message.id, message.content, message.created_at, event.id AS event_id, event.payload FROM message, event`;
  serve(subjects.post, async ({ code, content, key, address }) => {
    const client = await pool.connect();
    let posted;
    try {
      await client.query('BEGIN');
      const scope = `post-message:item:${code}:${address}`;
      if (key) {
        const claimed = await client.query(
          `INSERT INTO ${s}.idempotency_keys (scope, key, request_hash) VALUES ($1, $2, $3) ON CONFLICT (scope, key) DO NOTHING RETURNING 1`,
          [scope, sha256(key), sha256(json({ code, content }))],
        );
        if (claimed.rowCount === 0) throw new Error('IDEMPOTENT_REPEAT');
      }
      const finderToken = randomBytes(32).toString('base64url');
      const { rows } = await client.query(FIRST_MESSAGE, [code, randomUUID(), sha256(finderToken), content, subjects.created]);
      if (rows.length === 0) throw new Error('ITEM_NOT_FOUND');
      posted = rows[0];
      const answer = { message: { id: String(posted.id), author: 'finder', content: posted.content, created_at: posted.created_at }, finder_token: finderToken };
      if (key) await client.query(`UPDATE ${s}.idempotency_keys SET response = $3 WHERE scope = $1 AND key = $2`, [scope, sha256(key), seal(answer, key, scope)]);
      await client.query('COMMIT');
      void publishCommitted({ id: posted.event_id, payload: posted.payload }).catch(() => undefined);
      return answer;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  });
  // The owner's newest unread finder's message from `messageId` on, and the mail's reply token minted with it.
  serve(subjects.unread, async ({ conversationId, messageId }) => {
    const replyToken = randomBytes(16).toString('base64url');
    const { rows } = await pool.query(
      `WITH latest AS (SELECT id FROM ${s}.messages WHERE conversation_id = $1 AND id >= $2 AND author = 'finder' AND read_at IS NULL ORDER BY id DESC LIMIT 1),
       token AS (INSERT INTO ${s}.reply_tokens (hash, conversation_id) SELECT $3, $1 FROM latest RETURNING 1)
       SELECT id FROM latest`,
      [conversationId, messageId, sha256(replyToken)],
    );
    return rows.length ? { latestUnreadMessageId: String(rows[0].id), replyToken } : { latestUnreadMessageId: null };
  });
  // A mail's receipt: the message marked delivered, once (the ledger row in the same statement).
  await consume('receipts', subjects.receipt, ({ eventId, messageId }) =>
    pool.query(
      `WITH seen AS (INSERT INTO ${s}.ledger (consumer, event_id) VALUES ('receipts', $1) ON CONFLICT DO NOTHING RETURNING 1)
       UPDATE ${s}.messages SET delivered_at = now() WHERE id = $2 AND EXISTS (SELECT 1 FROM seen)`,
      [eventId, messageId],
    ),
  );
  answerReady('messages');
}

if (ROLE === 'users') {
  serve(subjects.user, async ({ id }) => {
    const { rows } = await pool.query(`SELECT id, email, language, password_hash IS NOT NULL AS "hasPassword" FROM ${s}.users WHERE id = $1`, [id]);
    return rows[0] ?? { error: 'NOT_FOUND' };
  });
  answerReady('users');
}

if (ROLE === 'mail') {
  const connection = () => new IORedis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('email', { connection: connection(), prefix: STREAM });
  // The event once, and the item's people told by e-mail, in one statement; a job per person, its id the event's.
  await consume('mail', subjects.created, async (event) => {
    const { rows } = await pool.query(
      `WITH seen AS (INSERT INTO ${s}.ledger (consumer, event_id) VALUES ('mail', $1) ON CONFLICT DO NOTHING RETURNING 1)
       SELECT user_id FROM ${s}.item_people WHERE code = $2 AND EXISTS (SELECT 1 FROM seen)`,
      [String(event.messageId), event.itemCode],
    );
    for (const { user_id: userId } of rows) {
      await queue.add('new-message', { messageId: event.messageId, conversationId: event.conversationId, itemCode: event.itemCode, userId }, { jobId: `email_${event.messageId}_${userId}`, removeOnComplete: { age: 3600 } });
    }
  });
  const html = Handlebars.compile(
    '<!doctype html><html lang="{{language}}"><body><h1>Someone found your item</h1><p>A finder wrote about your tag {{itemCode}}.</p>' +
      '<p><a href="https://homing.test/items/{{itemCode}}">Read and answer</a></p><p>You can also answer this e-mail.</p></body></html>',
  );
  const text = Handlebars.compile('Someone found your item\n\nA finder wrote about your tag {{itemCode}}.\n\nRead and answer: https://homing.test/items/{{itemCode}}\n');
  const transport = nodemailer.createTransport({ url: SMTP_URL, pool: true, maxConnections: 5, maxMessages: Infinity });
  const ask = async (subject, request) => {
    const answer = (await nc.request(subject, json(request), { timeout: 5000 })).json();
    if (answer.error) throw new Error(answer.error);
    return answer;
  };
  new Worker(
    'email',
    async (job) => {
      const { messageId, conversationId, itemCode, userId } = job.data;
      const claimToken = randomUUID();
      // The claim before the address (an erased user's id never comes back), the standing beside it.
      const [claim, standing] = await Promise.all([
        pool.query(
          `INSERT INTO ${s}.deliveries (job_id, status, claim_token, claimed_until) VALUES ($1, 'sending', $2, now() + interval '60 seconds')
           ON CONFLICT (job_id) DO UPDATE SET claim_token = EXCLUDED.claim_token, claimed_until = EXCLUDED.claimed_until
             WHERE deliveries.status <> 'sent' AND deliveries.claimed_until < now()
           RETURNING 1`,
          [job.id, claimToken],
        ),
        pool.query(`SELECT email_on FROM ${s}.item_people WHERE code = $1 AND user_id = $2`, [itemCode, userId]),
      ]);
      if (claim.rowCount === 0 || !standing.rows[0]?.email_on) return;
      const [user, unread] = await Promise.all([ask(subjects.user, { id: userId }), ask(subjects.unread, { conversationId, messageId })]);
      if (!unread.latestUnreadMessageId) return;
      const view = { itemCode, language: user.language };
      await transport.sendMail({
        from: 'Homing <notifications@homing.test>',
        to: user.email,
        subject: 'Someone found your item',
        html: html(view),
        text: text(view),
        replyTo: `c-${unread.replyToken}@relay.homing.test`,
        messageId: `<${job.id}@homing.test>`,
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
      const { rows } = await pool.query(
        `WITH sent AS (UPDATE ${s}.deliveries SET status = 'sent', sent_at = now() WHERE job_id = $1 AND claim_token = $2 RETURNING job_id)
         INSERT INTO ${s}.outbox (subject, payload) SELECT $3, json_build_object('subject', $3::text, 'eventId', sent.job_id, 'messageId', $4::bigint) FROM sent RETURNING id, payload`,
        [job.id, claimToken, subjects.receipt, messageId],
      );
      if (rows[0]) void publishCommitted(rows[0]).catch(() => undefined);
    },
    { connection: connection(), prefix: STREAM, concurrency: 10 },
  );
  answerReady('mail');
}

process.on('SIGTERM', () => process.exit(0));
