#!/usr/bin/env node
// B3: a finder's message end to end, POST /api/v1/items/{code}/messages → the owner's e-mail accepted by an SMTP
// sink, sent open loop at 50 messages a second, against the plain pipeline (pipeline-baseline.mjs: pg insert →
// JetStream → BullMQ → pooled nodemailer SMTP) fed the same way, in alternating rounds. Latency from each POST's
// sending to its mail's acceptance, matched by recipient (one owner per message). Goals: p50 ≤ 1.5×, p99 ≤ 2× the
// plain pipeline; none lost, none duplicated. A third side, not judged, is the same-hops pipeline
// (same-hops-pipeline.mjs: the product's hops and guarantees on the bare libraries): the product's ratio to it is its
// own overhead, the plain pipeline's ratio to it the cost of the architecture's rules. Every POST carries an
// Idempotency-Key, as the web app sends one with every message (`--keys off`: none, to measure what the key costs).
// Usage: npm run bench -- b3 [--rounds 3 --messages 200 --cpu-prof DIR] [--only b3|b5] [--rate 50] [--keys off] [--smoke]
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import IORedis from 'ioredis';
import { SMTPServer } from 'smtp-server';
import { benchKeys } from './bench-env.mjs';
import { backendsOf, cpuOr, ensureDatabase, figureOf, formatRatio, freePort, machineLine, option, root, smoke, startPinned, startServicePinned, stopAll, summaryRow, waitReady, wakeUps, writeSection } from './harness.mjs';

const rounds = Number(option('rounds', smoke ? '1' : '3'));
const messages = Number(option('messages', smoke ? '20' : '200'));
// `--only b5` (npm run bench -- b5) measures the sustained rate alone, `--only b3` the latency alone; b3 measures both
// in one run of the stack.
const only = option('only', undefined);
const runB3 = only !== 'b5';
const runB5 = only !== 'b3';
// B5: open-loop steps of rising rate, each STEP_SECONDS long, until a rate is not sustained.
const STEP_SECONDS = Number(option('step-seconds', smoke ? '1' : '3'));
const FIRST_RATE = 25;
const RATE_FACTOR = 1.5;
const MAX_RATE = smoke ? 40 : 1500;
// A step keeps up when the p90 latency of its last third of messages is at most this much above its first third's,
// and under a second: a pipeline already saturated when the step starts shows a high latency that no longer grows.
const BACKLOG_GROWTH_MS = 250;
const LATENCY_CEILING_MS = 1000;
// Issue 29's figure.
const B5_GOAL = 0.5;
// --cpu-prof DIR: every service writes a V8 CPU profile there when it stops (see profile-summary.mjs).
const profileDir = option('cpu-prof', undefined);
const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
// B3's rate. `--rate N` measures the same path at another rate, to tell the path's own latency from queueing on the
// one core (a diagnosis: judged and written to docs/benchmarks.md only at the goal's 50).
const GOAL_RATE = 50;
const RATE = Number(option('rate', String(GOAL_RATE)));
// Messages each pipeline is sent, at RATE, before the first timed round.
const WARM_UPS = smoke ? 5 : 100;
const GOALS = { p50: 1.5, p99: 2 };
const withKeys = option('keys', 'on') !== 'off';
const idempotencyHeader = () => (withKeys ? { 'idempotency-key': randomBytes(16).toString('hex') } : {});
const SERVICES = ['identity', 'items', 'messaging', 'notifications'];
const SAME_HOPS_ROLES = ['edge', 'messages', 'users', 'mail'];

const namespace = `bench_${randomBytes(3).toString('hex')}`;
// The product's owner of each seeded tag; the same-hops pipeline's owner of the same tag is `same-<that address>`.
const ownerEmail = (index) => `owner-${index}-${namespace}@bench.test`;
const schemaOf = (service) => `${service}_${namespace}`;
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test';
const work = mkdtempSync(join(tmpdir(), 'homing-b3-'));
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
// Wall-clock milliseconds, comparable with the timestamps PostgreSQL and BullMQ record (same machine clock).
const wallNow = () => performance.timeOrigin + performance.now();

// The sink: when each recipient's mail was accepted (every acceptance counted, to find duplicates). Like an MTA, it
// greets a new connection after a 100 ms pause (smtp-server's early-talker check); it looks up no client's name,
// which on a machine without DNS would only add the resolver's own wait.
const accepted = new Map();
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  disableReverseLookup: true,
  logger: false,
  onData(stream, session, callback) {
    stream.resume();
    stream.on('end', () => {
      const now = wallNow();
      for (const { address } of session.envelope.rcptTo) accepted.set(address, [...(accepted.get(address) ?? []), now]);
      callback();
    });
  },
});
const smtpPort = await freePort();
await new Promise((done) => sink.listen(smtpPort, '127.0.0.1', done));

/** The value below which `share` of the finite `values` fall (NaN when there are none). */
const quantile = (values, share) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] : NaN;
};

/** Sends one message per recipient at RATE a second without waiting for answers; latencies of their mails. */
async function openLoop(recipients, post) {
  const sentAt = new Map();
  const answeredAt = new Map();
  const answers = [];
  const started = wallNow();
  for (const [index, recipient] of recipients.entries()) {
    await sleep(Math.max(0, started + (index * 1000) / RATE - wallNow()));
    sentAt.set(recipient, wallNow());
    answers.push(post(recipient, index).then((status) => (answeredAt.set(recipient, wallNow()), status)));
  }
  const statuses = await Promise.all(answers);
  const failed = statuses.filter((status) => status !== 201).length;
  const deadline = wallNow() + 30_000;
  while (recipients.some((recipient) => !accepted.has(recipient)) && wallNow() < deadline) await sleep(50);
  await sleep(500);
  const latencies = recipients.filter((recipient) => accepted.has(recipient)).map((recipient) => accepted.get(recipient)[0] - sentAt.get(recipient));
  return {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    lost: recipients.filter((recipient) => !accepted.has(recipient)).length,
    duplicated: recipients.filter((recipient) => (accepted.get(recipient)?.length ?? 0) > 1).length,
    failed,
    sentAt,
    answeredAt,
  };
}

/**
 * Where a product round's time went, per message and stage, from what each step records: the POST's answer (bench),
 * the outbox row's creation and its publication's start (messaging's `outbox`: `published_at` is when its process's
 * dispatch began, or a relay round's transaction start), the consumer's enqueue and the worker's start (the BullMQ job's `timestamp` and `processedOn`), the worker's
 * delivery row's `sent_at`, and the SMTP sink's acceptance. p50 and p99 of each stage over the round.
 */
async function stagesOf(db, redis, prefix, recipients, round, ownerOf) {
  // Codes as the events carry them: upper case, without dashes.
  const plainCode = (code) => String(code).replaceAll('-', '').toUpperCase();
  const codeOf = new Map(recipients.map((recipient) => [plainCode(ownerOf.get(recipient)), recipient]));
  const at = new Map(recipients.map((recipient) => [recipient, { sent: round.sentAt.get(recipient), answered: round.answeredAt.get(recipient), accepted: accepted.get(recipient)?.[0] }]));
  const { rows: outbox } = await db.query(
    `SELECT id, envelope->'data'->>'itemCode' AS code, extract(epoch FROM created_at) * 1000 AS created, extract(epoch FROM published_at) * 1000 AS published
       FROM "${schemaOf('messaging')}".outbox WHERE subject = 'messaging.message.created.v1' AND envelope->'data'->>'itemCode' = ANY($1)`,
    [[...codeOf.keys()]],
  );
  // A job's id names the event it is about (`email_<event id>_<recipient>`); a finished job keeps no tag code.
  const recipientOfEvent = new Map();
  for (const row of outbox) {
    const recipient = codeOf.get(plainCode(row.code));
    recipientOfEvent.set(row.id, recipient);
    Object.assign(at.get(recipient), { written: Number(row.created), relayed: Number(row.published) });
  }
  const { rows: deliveries } = await db.query(
    `SELECT job_id, extract(epoch FROM sent_at) * 1000 AS sent FROM "${schemaOf('notifications')}".deliveries WHERE channel = 'email' AND kind = 'new-message'`,
  );
  const deliveryOf = new Map(deliveries.map((row) => [row.job_id, row]));
  for (const key of await redis.keys(`${prefix}:email:email_*`)) {
    const [timestamp, processedOn] = await redis.hmget(key, 'timestamp', 'processedOn');
    const recipient = recipientOfEvent.get(key.slice(key.lastIndexOf(':') + 1).split('_')[1]);
    if (!recipient) continue;
    const delivery = deliveryOf.get(key.slice(key.lastIndexOf(':') + 1));
    Object.assign(at.get(recipient), { enqueued: Number(timestamp), picked: Number(processedOn), smtpDone: Number(delivery?.sent) });
  }
  const stages = [
    ['POST answered (gateway → messaging: message + outbox rows)', 'sent', 'answered'],
    ['outbox row written → its publication starts (dispatch at commit, or a relay round)', 'written', 'relayed'],
    ['publication → event consumed, e-mail job enqueued (JetStream, consumer)', 'relayed', 'enqueued'],
    ['job waiting in the queue', 'enqueued', 'picked'],
    // The delivery row is written once, with the outcome: its sent_at is when the worker finished.
    ['worker: job start → SMTP accepted, delivery row written', 'picked', 'smtpDone'],
  ];
  return stages.map(([name, from, to]) => {
    const spans = [...at.values()].map((times) => times[to] - times[from]);
    return { name, p50: quantile(spans, 0.5), p99: quantile(spans, 0.99) };
  });
}

/**
 * What each service has done so far, from its /metrics: SQL statements by the RPC or consumer that sent them
 * (`homing_db_queries_total`), RPCs it sent by subject (`homing_rpc_client_duration_seconds_count`), and the time its
 * garbage collections took by kind (`nodejs_gc_duration_seconds_sum`, in µs).
 */
async function workCounts(ports) {
  const counts = {};
  for (const service of [...SERVICES, 'gateway']) {
    const text = await (await fetch(`http://127.0.0.1:${ports[service]}/metrics`)).text();
    const add = (name, value) => (counts[name] = (counts[name] ?? 0) + value);
    for (const line of text.split('\n')) {
      const statements = /^homing_db_queries_total\{[^}]*work="([^"]+)"[^}]*\} (\S+)/.exec(line);
      if (statements) counts[`${service} SQL ${statements[1]}`] = Number(statements[2]);
      const calls = /^homing_rpc_client_duration_seconds_count\{[^}]*subject="([^"]+)"[^}]*\} (\S+)/.exec(line);
      if (calls) add(`${service} RPC ${calls[1]}`, Number(calls[2]));
      // Time per message, as the caller waited for each RPC and as its server handled it (the gap: NATS and the
      // queue for the core), and the POST as the gateway served it; summed over the series' outcomes and statuses.
      const waited = /^homing_rpc_client_duration_seconds_sum\{[^}]*subject="([^"]+)"[^}]*\} (\S+)/.exec(line);
      if (waited) add(`${service} RPC ${waited[1]} µs`, Number(waited[2]) * 1e6);
      const served = /^homing_rpc_server_duration_seconds_sum\{[^}]*subject="([^"]+)"[^}]*\} (\S+)/.exec(line);
      if (served) add(`${service} serves ${served[1]} µs`, Number(served[2]) * 1e6);
      const posted = /^homing_http_request_duration_seconds_sum\{(?=[^}]*method="POST")[^}]*route="([^"]+)"[^}]*\} (\S+)/.exec(line);
      if (posted) add(`${service} HTTP POST ${posted[1]} µs`, Number(posted[2]) * 1e6);
      const collections = /^nodejs_gc_duration_seconds_sum\{[^}]*kind="([^"]+)"[^}]*\} (\S+)/.exec(line);
      if (collections) counts[`${service} GC ${collections[1]} µs`] = Number(collections[2]) * 1e6;
    }
  }
  return counts;
}

/** Per message, what changed between two `workCounts` (only what did). */
const countsPerMessage = (before, after, count) =>
  Object.fromEntries(Object.keys(after).map((name) => [name, (after[name] - (before[name] ?? 0)) / count]).filter(([, n]) => n > 0));

/**
 * CPU (utime + stime, µs) and wake-ups of each named process and its PostgreSQL backends (counted under `<name> pg`).
 */
async function usageSnapshot(db, processes) {
  const cpu = {};
  const wakes = {};
  const cpuOf = (pid) => {
    const { user, system } = cpuOr(pid, { user: 0, system: 0 });
    return user + system;
  };
  for (const [name, pid] of Object.entries(processes)) {
    cpu[name] = cpuOf(pid);
    wakes[name] = wakeUps(pid);
    const backends = ['nats', 'redis'].includes(name) ? [] : await backendsOf(db, pid);
    cpu[`${name} pg`] = backends.reduce((sum, backend) => sum + cpuOf(backend), 0);
    wakes[`${name} pg`] = backends.reduce((sum, backend) => sum + wakeUps(backend), 0);
  }
  return { cpu, wakes };
}

/** Per message, by process, between two snapshots' figures (backends that came or went meanwhile are not counted). */
const perMessage = (before, after, count, least) =>
  Object.fromEntries(Object.keys(after).map((name) => [name, Math.max(0, (after[name] - (before[name] ?? 0)) / count)]).filter(([, value]) => value >= least));
/** µs of CPU per message by process. */
const cpuPerMessage = (before, after, count) => perMessage(before.cpu, after.cpu, count, 1);
/** Wake-ups per message by process. */
const wakesPerMessage = (before, after, count) => perMessage(before.wakes, after.wakes, count, 0.05);

let db;
let redis;
try {
  const keys = benchKeys();
  const [natsPort, redisPort] = [await freePort(), await freePort()];
  const pids = {};
  pids.nats = startPinned('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(work, 'jetstream')], {}, 'ignore');
  pids.redis = startPinned('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {}, 'ignore');
  const shared = { DATABASE_URL: databaseUrl, NATS_URL: `nats://127.0.0.1:${natsPort}`, NATS_NAMESPACE: namespace, REDIS_URL: `redis://127.0.0.1:${redisPort}`, NODE_ENV: 'test', LOG_LEVEL: 'warn', SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...keys };
  const envOf = (service) => ({ ...shared, DATABASE_SCHEMA: schemaOf(service), ...(service === 'notifications' ? { NOTIFICATIONS_ROLE: 'all' } : {}) });
  db = await ensureDatabase(databaseUrl);
  for (const service of SERVICES) execFileSync(process.execPath, [resolve(root, 'dist/apps', service, 'main.js'), 'migrate'], { env: { ...process.env, ...envOf(service) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const owners = (runB3 ? messages * rounds : smoke ? 20 : 100) + WARM_UPS;
  const codes = execFileSync(process.execPath, [resolve(root, 'dist/apps/items/main.js'), 'seed-tags', '--count', String(owners)], { env: { ...process.env, ...envOf('items') }, encoding: 'utf8' }).trim().split('\n');
  const ports = {};
  for (const service of [...SERVICES, 'gateway', 'baseline', 'sameHops']) ports[service] = await freePort();
  for (const service of SERVICES) pids[service] = startServicePinned(service, { ...envOf(service), PORT: String(ports[service]) }, profiling).pid;
  pids.gateway = startServicePinned('gateway', { ...shared, PORT: String(ports.gateway), TRUSTED_PROXIES: '127.0.0.1' }, profiling).pid;
  pids.plain = startPinned(process.execPath, [resolve(import.meta.dirname, 'pipeline-baseline.mjs')], { ...shared, PORT: String(ports.baseline), DATABASE_SCHEMA: `pipeline_${namespace}`, STREAM: `PIPELINE_${namespace.toUpperCase()}` }).pid;
  // The same-hops pipeline: its tables and stream, its owners (the product's codes, each owner's address under
  // `same-`), then its four processes.
  const sameHopsEnv = { ...shared, DATABASE_SCHEMA: `samehops_${namespace}`, STREAM: `SAMEHOPS_${namespace.toUpperCase()}` };
  const sameHopsScript = resolve(import.meta.dirname, 'same-hops-pipeline.mjs');
  execFileSync(process.execPath, [sameHopsScript], { env: { ...process.env, ...sameHopsEnv, ROLE: 'setup' }, stdio: ['ignore', 'ignore', 'inherit'] });
  const sameHopsOwners = codes.map((code, index) => ({ code, id: randomUUID(), email: `same-${ownerEmail(index)}` }));
  await db.query(
    `WITH owners AS (SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[]) AS owner (code, id, email)),
     users AS (INSERT INTO "samehops_${namespace}".users (id, email, language) SELECT id, email, 'en' FROM owners),
     people AS (INSERT INTO "samehops_${namespace}".item_people (code, user_id) SELECT code, id FROM owners)
     INSERT INTO "samehops_${namespace}".items (code, owner_id) SELECT code, id FROM owners`,
    [sameHopsOwners.map((owner) => owner.code), sameHopsOwners.map((owner) => owner.id), sameHopsOwners.map((owner) => owner.email)],
  );
  for (const role of SAME_HOPS_ROLES) pids[`same ${role}`] = startPinned(process.execPath, [sameHopsScript], { ...sameHopsEnv, ROLE: role, PORT: String(ports.sameHops) }).pid;
  pids.nats = pids.nats.pid;
  pids.redis = pids.redis.pid;
  await Promise.all(Object.values(ports).map((port) => waitReady(`http://127.0.0.1:${port}/health/ready`)));
  const api = `http://127.0.0.1:${ports.gateway}/api/v1`;
  redis = new IORedis(shared.REDIS_URL, { lazyConnect: true });
  await redis.connect();
  const bullmqPrefix = `homing_${namespace}`;
  const address = (index) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

  // One owner per message (an owner's mail is coalesced per conversation, and each is matched by its recipient).
  const ownerOf = new Map();
  for (const [index, code] of codes.entries()) {
    const email = ownerEmail(index);
    const claimed = await fetch(`${api}/claim`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address(index) }, body: JSON.stringify({ code, email }) });
    if (claimed.status !== 200) throw new Error(`POST /claim: ${claimed.status} ${await claimed.text()}`);
    ownerOf.set(email, code);
  }
  // Messaging knows every owner, and the welcome mails of the claims are in before anything is timed.
  while (Number((await db.query(`SELECT count(*) AS n FROM "${schemaOf('messaging')}".item_owners`)).rows[0].n) < owners) await sleep(100);
  for (let quiet = 0, seen = -1; quiet < 3; await sleep(1000)) {
    const total = [...accepted.values()].reduce((sum, list) => sum + list.length, 0);
    quiet = total === seen ? quiet + 1 : 0;
    seen = total;
  }
  accepted.clear();

  const warmUps = [...ownerOf.keys()].slice(0, WARM_UPS);
  const recipients = [...ownerOf.keys()].slice(WARM_UPS);
  // A finder's message as the web app posts it, from an address of its own: its answer's status.
  const postMessage = (messagesUrl, index) =>
    fetch(messagesUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address(100_000 + index), ...idempotencyHeader() },
      body: JSON.stringify({ content: 'I found your keys at the station.' }),
    }).then((response) => response.status);
  const product = (recipient, index) => postMessage(`${api}/items/${ownerOf.get(recipient)}/messages`, index);
  const sameHops = (sameRecipient, index) => postMessage(`http://127.0.0.1:${ports.sameHops}/items/${ownerOf.get(sameRecipient.slice('same-'.length))}/messages`, index);
  const baseline = (recipient) =>
    fetch(`http://127.0.0.1:${ports.baseline}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ itemCode: ownerOf.get(recipient), recipient: `plain-${recipient}`, content: 'I found your keys at the station.' }),
    }).then((response) => response.status);

  // Both pipelines warmed up alike before anything is timed, with messages of owners of their own: SMTP connections
  // open, code compiled, caches filled. Without it the product's first round was its message path's first use (the
  // claims' welcome mails warm no more than the mail worker) and the plain pipeline's its first connections.
  await openLoop(warmUps.map((recipient) => `plain-${recipient}`), (plainRecipient) => baseline(plainRecipient.slice('plain-'.length)));
  await openLoop(warmUps.map((recipient) => `same-${recipient}`), sameHops);
  await openLoop(warmUps, product);
  accepted.clear();

  if (runB3) await measureB3();
  if (runB5) await measureB5();

  /**
   * B5: the highest rate each pipeline sustains. Steps of rising rate (×1.5 from 25 a second), each sent open loop
   * for STEP_SECONDS; a step is sustained when every POST succeeds, every mail arrives, the latency stays under
   * LATENCY_CEILING_MS and does not grow across it (the p90
   * of its last third of messages within BACKLOG_GROWTH_MS of its first third's: no backlog building up). Each
   * side stops at its first step not sustained, after its mails have drained. Alternating rounds, plain first.
   */
  async function measureB5() {
    let sentSoFar = 0;
    const ladder = [];
    for (let rate = FIRST_RATE; rate <= MAX_RATE; rate = Math.round(rate * RATE_FACTOR)) ladder.push(rate);
    async function step(rate, post, recipientOf) {
      accepted.clear();
      const count = Math.max(3, Math.round(rate * STEP_SECONDS));
      const sent = [];
      const started = wallNow();
      const answers = [];
      for (let index = 0; index < count; index += 1) {
        await sleep(Math.max(0, started + (index * 1000) / rate - wallNow()));
        const recipient = recipientOf(sentSoFar + index);
        sent.push({ recipient, at: wallNow() });
        answers.push(post(recipient, sentSoFar + index));
      }
      sentSoFar += count;
      const statuses = await Promise.all(answers);
      const expected = new Map();
      for (const { recipient } of sent) expected.set(recipient, (expected.get(recipient) ?? 0) + 1);
      const deadline = wallNow() + 60_000;
      const arrived = () => [...expected].every(([recipient, n]) => (accepted.get(recipient)?.length ?? 0) >= n);
      while (!arrived() && wallNow() < deadline) await sleep(50);
      // The i-th mail of a recipient answers its i-th message of the step.
      const seen = new Map();
      const latencies = sent.map(({ recipient, at }) => {
        const nth = seen.get(recipient) ?? 0;
        seen.set(recipient, nth + 1);
        return (accepted.get(recipient)?.[nth] ?? NaN) - at;
      });
      const third = Math.max(1, Math.floor(count / 3));
      const early = quantile(latencies.slice(0, third), 0.9);
      const late = quantile(latencies.slice(-third), 0.9);
      const lost = latencies.filter((latency) => !Number.isFinite(latency)).length;
      const failed = statuses.filter((status) => status !== 201).length;
      return { rate, count, early, late, lost, failed, sustained: lost === 0 && failed === 0 && late <= early + BACKLOG_GROWTH_MS && late <= LATENCY_CEILING_MS };
    }
    async function highestSustained(side, post, recipientOf) {
      let best = 0;
      const steps = [];
      for (const rate of ladder) {
        // On this shared 2-core machine one hiccup can stall a step: a step not sustained is tried once more.
        let result;
        for (let attempt = 0; attempt < 2 && !result?.sustained; attempt += 1) {
          result = await step(rate, post, recipientOf);
          steps.push(result);
          console.log(`  ${side} ${rate}/s: p90 first third ${result.early.toFixed(0)} ms, last third ${result.late.toFixed(0)} ms, lost ${result.lost}, failed ${result.failed}: ${result.sustained ? 'sustained' : 'not sustained'}`);
        }
        if (!result.sustained) break;
        best = rate;
      }
      return { best, steps };
    }
    const plainPost = (recipient) => baseline(recipient.slice('plain-'.length));
    const sameHopsPost = (recipient, n) => sameHops(recipient, 200_000 + n);
    const productRecipientOf = (n) => recipients[n % recipients.length];
    // Every product message comes from an address of its own and opens a conversation of its own, so each is mailed.
    const productPost = (recipient, n) => product(recipient, 200_000 + n);
    console.log(`\nB5: steps of ${STEP_SECONDS} s at ${ladder.join(', ')} messages a second until one is not sustained; plain pipeline, same-hops pipeline and product in turn\n`);
    const b5rows = [];
    for (let round = 0; round < rounds; round += 1) {
      const plain = await highestSustained('plain', plainPost, (n) => `plain-${recipients[n % recipients.length]}`);
      const same = await highestSustained('same-hops', sameHopsPost, (n) => `same-${recipients[n % recipients.length]}`);
      const system = await highestSustained('product', productPost, productRecipientOf);
      const ratio = system.best / Math.max(1, plain.best);
      const sameRatio = system.best / Math.max(1, same.best);
      b5rows.push({ round: round + 1, plain, same, system, ratio, sameRatio });
      console.log(`round ${round + 1}: plain ${plain.best}/s, same-hops ${same.best}/s, product ${system.best}/s: ${ratio.toFixed(2)}× (of the same-hops pipeline's: ${sameRatio.toFixed(2)}×)`);
    }
    const figure = figureOf(b5rows.map((row) => row.ratio));
    const sameFigure = figureOf(b5rows.map((row) => row.sameRatio));
    const floorFigure = figureOf(b5rows.map((row) => row.same.best / Math.max(1, row.plain.best)));
    const pass = figure.median >= B5_GOAL;
    console.log(`\nB5 sustained rate = ${formatRatio(figure)} of the plain pipeline (goal ≥ ${B5_GOAL}×): ${smoke ? 'smoke run, not judged' : pass ? 'PASS' : 'MISS'}`);
    console.log(`  of the same-hops pipeline's: ${formatRatio(sameFigure)}; the same-hops pipeline's of the plain one's: ${formatRatio(floorFigure)} (not judged)`);
    const stepsOf = ({ steps }) => steps.map((s) => `${s.rate}/s ${s.sustained ? '✓' : '✗'} (p90 ${s.early.toFixed(0)}→${s.late.toFixed(0)} ms${s.lost ? `, lost ${s.lost}` : ''}${s.failed ? `, failed ${s.failed}` : ''})`).join(', ');
    writeSection(
      'b5',
      [
        '## B5: sustained messages a second without backlog growth (latest run)',
        '',
        `- **B5 sustained rate = ${formatRatio(figure)}** of the plain pipeline's, goal ≥ ${B5_GOAL}×: **${pass ? 'pass' : 'miss'}**`,
        `- Not judged: the product's rate is ${formatRatio(sameFigure)} of the same-hops pipeline's (its own overhead), and the same-hops pipeline's ${formatRatio(floorFigure)} of the plain one's (what the architecture's hops and guarantees cost on the bare libraries)`,
        '',
        '| round | plain pipeline | same-hops pipeline | product | product / plain | product / same-hops |',
        '|---|---|---|---|---|---|',
        ...b5rows.map(({ round, plain, same, system, ratio, sameRatio }) => `| ${round} | ${plain.best}/s | ${same.best}/s | ${system.best}/s | ${ratio.toFixed(2)}× | ${sameRatio.toFixed(2)}× |`),
        '',
        ...b5rows.map(({ round, plain, same, system }) => `- round ${round} steps: plain ${stepsOf(plain)}; same-hops ${stepsOf(same)}; product ${stepsOf(system)}`),
        '',
        `- Command: \`npm run bench -- b5 --rounds ${rounds}\` (after \`npm run build\`; \`b3\` runs it too, after B3). Steps of ${STEP_SECONDS} s at ${ladder.slice(0, 8).join(', ')}, … messages a second (×${RATE_FACTOR}), sent open loop; a step is sustained when every mail reaches the SMTP sink and the p90 latency of its last third of messages is within ${BACKLOG_GROWTH_MS} ms of its first third's (no backlog building up) and under ${LATENCY_CEILING_MS} ms, with every POST answered 201; a step not sustained is tried once more, and each side stops at its first step not sustained twice, once its mails have drained. Product messages go round-robin to ${recipients.length} claimed items, each from an address of its own (a conversation and a mail each; the spam limits are per address and tag, 200 an hour per tag). Same processes, core and sink as B3.`,
        machineLine(),
        `- Date: ${new Date().toISOString()}`,
      ].join('\n'),
      [summaryRow('B5 sustained messages a second (vs plain pipeline)', formatRatio(figure), `≥ ${B5_GOAL}×`, pass)],
    );
  }

  /** A reference pipeline's open loop, with the CPU and wake-ups per message of its processes (named as in `pids`). */
  async function measuredLoop(names, recipients, post) {
    const processes = Object.fromEntries(names.map((name) => [name, pids[name]]));
    const before = await usageSnapshot(db, processes);
    const round = await openLoop(recipients, post);
    const after = await usageSnapshot(db, processes);
    return { ...round, cpu: cpuPerMessage(before, after, recipients.length), wakes: wakesPerMessage(before, after, recipients.length) };
  }

  async function measureB3() {
  console.log(`B3: ${messages} messages per round at ${RATE}/s, one owner each; product and plain pipeline alternating\n`);
  console.log('round   plain p50/p99 ms   product p50/p99 ms   ratios p50/p99   lost/duplicated/failed (product; plain)');
  const rows = [];
  for (let round = 0; round < rounds; round += 1) {
    const batch = recipients.slice(round * messages, (round + 1) * messages);
    const plain = await measuredLoop(['plain', 'nats', 'redis'], batch.map((recipient) => `plain-${recipient}`), (plainRecipient) => baseline(plainRecipient.slice('plain-'.length)));
    const same = await measuredLoop([...SAME_HOPS_ROLES.map((role) => `same ${role}`), 'nats', 'redis'], batch.map((recipient) => `same-${recipient}`), sameHops);
    const productProcesses = Object.fromEntries(['gateway', ...SERVICES, 'nats', 'redis'].map((name) => [name, pids[name]]));
    const usageBefore = await usageSnapshot(db, productProcesses);
    const workBefore = await workCounts(ports);
    const system = await openLoop(batch, product);
    const usageAfter = await usageSnapshot(db, productProcesses);
    system.cpu = cpuPerMessage(usageBefore, usageAfter, batch.length);
    system.wakes = wakesPerMessage(usageBefore, usageAfter, batch.length);
    system.work = countsPerMessage(workBefore, await workCounts(ports), batch.length);
    const ratios = { p50: system.p50 / plain.p50, p99: system.p99 / plain.p99, sameP50: system.p50 / same.p50, sameP99: system.p99 / same.p99, floorP50: same.p50 / plain.p50 };
    const stages = await stagesOf(db, redis, bullmqPrefix, batch, system, ownerOf);
    rows.push({ round: round + 1, plain, same, system, ratios, stages });
    console.log(
      `${String(round + 1).padStart(5)}   ${plain.p50.toFixed(1)}/${plain.p99.toFixed(1)}   ${system.p50.toFixed(1)}/${system.p99.toFixed(1)}   ${ratios.p50.toFixed(2)}×/${ratios.p99.toFixed(2)}×   ${system.lost}/${system.duplicated}/${system.failed}; ${plain.lost}/${plain.duplicated}/${plain.failed}`,
    );
    console.log(`        same-hops ${same.p50.toFixed(1)}/${same.p99.toFixed(1)} ms, lost/duplicated/failed ${same.lost}/${same.duplicated}/${same.failed}; product / same-hops ${ratios.sameP50.toFixed(2)}×/${ratios.sameP99.toFixed(2)}×`);
  }
  console.log('\nthe product\'s CPU per message (µs, by process, per round; PostgreSQL backends as "<service> pg"):');
  // The load messages at RATE put on core 0, where every process but PostgreSQL's backends (not pinned) runs: the CPU
  // they ask of it per second of sending. Near 100 %, each stage waits for the core and the latencies measure that queue
  // more than the path; over 100 %, a backlog grows (docs/benchmarks.md, stop 75).
  const coreLoad = (cpu) => (Object.entries(cpu).reduce((sum, [name, micros]) => (name.endsWith(' pg') ? sum : sum + micros), 0) * RATE) / 1e4;
  const cpuLine = (cpu) =>
    `${Object.entries(cpu).map(([name, micros]) => `${name} ${micros.toFixed(0)}`).join(', ')}; in all ${Object.values(cpu).reduce((a, b) => a + b, 0).toFixed(0)} µs, core 0 load ${coreLoad(cpu).toFixed(0)} % at ${RATE}/s`;
  for (const { round, system, plain, same } of rows) console.log(`  round ${round}: ${cpuLine(system.cpu)} (plain pipeline: ${cpuLine(plain.cpu)}; same-hops pipeline: ${cpuLine(same.cpu)})`);
  // Waking a process costs more than its request's work at these rates (docs/benchmarks.md, stop 77): how many wake-ups
  // a message asks of each process says where fewer round trips would save most (stop 78).
  const wakesLine = (wakes) => `${Object.entries(wakes).map(([name, n]) => `${name} ${n.toFixed(1)}`).join(', ')}; in all ${Object.values(wakes).reduce((a, b) => a + b, 0).toFixed(0)}`;
  console.log('\nthe product\'s wake-ups per message (voluntary context switches, all threads, by process, per round):');
  for (const { round, system, plain, same } of rows) console.log(`  round ${round}: ${wakesLine(system.wakes)} (plain pipeline: ${wakesLine(plain.wakes)}; same-hops pipeline: ${wakesLine(same.wakes)})`);
  console.log('\nthe product\'s SQL statements and RPCs per message (by service and the RPC or consumer that sent them; last round):');
  const workLine = (work) => Object.entries(work).sort(([a], [b]) => a.localeCompare(b)).map(([name, n]) => `${name} ${n.toFixed(2)}`);
  for (const line of workLine(rows.at(-1).system.work)) console.log(`  ${line}`);
  console.log('\nwhere the product\'s time went (ms, p50 / p99 of each stage, per round):');
  for (const [index, { name }] of rows[0].stages.entries()) console.log(`  ${name}: ${rows.map((row) => `${row.stages[index].p50.toFixed(0)} / ${row.stages[index].p99.toFixed(0)}`).join('; ')}`);
  const figures = { p50: figureOf(rows.map((row) => row.ratios.p50)), p99: figureOf(rows.map((row) => row.ratios.p99)) };
  // Not judged: the product against the same hops on the bare libraries, and those hops against the plain pipeline.
  const sameFigures = { p50: figureOf(rows.map((row) => row.ratios.sameP50)), p99: figureOf(rows.map((row) => row.ratios.sameP99)), floorP50: figureOf(rows.map((row) => row.ratios.floorP50)) };
  const lost = rows.reduce((sum, row) => sum + row.system.lost, 0);
  const duplicated = rows.reduce((sum, row) => sum + row.system.duplicated, 0);
  const pass = { p50: figures.p50.median <= GOALS.p50, p99: figures.p99.median <= GOALS.p99, exact: lost === 0 && duplicated === 0 };
  const verdict = smoke ? 'smoke run, not judged' : RATE !== GOAL_RATE ? `${RATE}/s, not the goal's ${GOAL_RATE}/s: not judged` : Object.values(pass).every(Boolean) ? 'PASS' : 'MISS';
  console.log(`\nB3 p50 = ${formatRatio(figures.p50)} (goal ≤ ${GOALS.p50}×), p99 = ${formatRatio(figures.p99)} (goal ≤ ${GOALS.p99}×), lost ${lost}, duplicated ${duplicated}: ${verdict}`);
  console.log(`  of the same-hops pipeline: p50 ${formatRatio(sameFigures.p50)}, p99 ${formatRatio(sameFigures.p99)}; the same-hops pipeline's p50 ${formatRatio(sameFigures.floorP50)} of the plain one's (not judged)`);
  if (RATE !== GOAL_RATE) return;
  writeSection(
    'b3',
    [
      '## B3: a finder’s message end to end (latest run)',
      '',
      `- **B3 p50 = ${formatRatio(figures.p50)}** of the plain pipeline, goal ≤ ${GOALS.p50}×: **${pass.p50 ? 'pass' : 'miss'}**`,
      `- **B3 p99 = ${formatRatio(figures.p99)}**, goal ≤ ${GOALS.p99}×: **${pass.p99 ? 'pass' : 'miss'}**`,
      `- Lost ${lost}, duplicated ${duplicated} (goal 0): **${pass.exact ? 'pass' : 'miss'}**`,
      `- Not judged: against the same-hops pipeline (the product's hops and guarantees on the bare libraries), the product's p50 is ${formatRatio(sameFigures.p50)} and its p99 ${formatRatio(sameFigures.p99)} (its own overhead); the same-hops pipeline's p50 is ${formatRatio(sameFigures.floorP50)} of the plain pipeline's (what those hops and guarantees cost)`,
      '',
      '| round | plain p50 / p99 ms | same-hops p50 / p99 ms | product p50 / p99 ms | p50 ratio | p99 ratio | product / same-hops p50, p99 | product lost / duplicated / failed POSTs |',
      '|---|---|---|---|---|---|---|---|',
      ...rows.map(
        ({ round, plain, same, system, ratios }) =>
          `| ${round} | ${plain.p50.toFixed(1)} / ${plain.p99.toFixed(1)} | ${same.p50.toFixed(1)} / ${same.p99.toFixed(1)} | ${system.p50.toFixed(1)} / ${system.p99.toFixed(1)} | ${ratios.p50.toFixed(2)}× | ${ratios.p99.toFixed(2)}× | ${ratios.sameP50.toFixed(2)}×, ${ratios.sameP99.toFixed(2)}× | ${system.lost} / ${system.duplicated} / ${system.failed} |`,
      ),
      '',
      'Where the product’s time went, stage by stage (ms, p50 / p99 over each round’s messages; from the timestamps each step records: the POST’s answer, messaging’s outbox row and the start of its publication (its `published_at`), the BullMQ job’s enqueue and start, the worker’s delivery row’s `sent_at`, the SMTP sink’s acceptance):',
      '',
      `| stage | ${rows.map(({ round }) => `round ${round}`).join(' | ')} |`,
      `|---|${rows.map(() => '---|').join('')}`,
      ...rows[0].stages.map(({ name }, index) => `| ${name} | ${rows.map((row) => `${row.stages[index].p50.toFixed(0)} / ${row.stages[index].p99.toFixed(0)}`).join(' | ')} |`),
      '',
      'The product’s CPU per message, by process (µs, utime + stime from `/proc`, over the round and the wait for its last mail; a PostgreSQL backend counts under its service as “pg”), and the load that puts on core 0, where every process but PostgreSQL runs, at the round’s rate (the CPU asked of it per second of sending: near 100 %, each stage waits for the core; over 100 %, a backlog grows):',
      '',
      ...rows.map(({ round, system, plain, same }) => `- round ${round}: ${cpuLine(system.cpu)} (the plain pipeline: ${cpuLine(plain.cpu)}; the same-hops pipeline: ${cpuLine(same.cpu)})`),
      '',
      'The wake-ups each message asks of each process (voluntary context switches of all its threads, from `/proc/<pid>/task/*/status`, over the same span; each is a wait for a socket, a lock or a timer, and waking a process costs more than a small request’s work at this rate, section “Stop 77”):',
      '',
      ...rows.map(({ round, system, plain, same }) => `- round ${round}: ${wakesLine(system.wakes)} (the plain pipeline: ${wakesLine(plain.wakes)}; the same-hops pipeline: ${wakesLine(same.wakes)})`),
      '',
      'The product’s SQL statements and RPCs per message in the last round, by service and the RPC or consumer that sent them, the time per message each RPC took as its caller waited and as its server handled it, the POST as the gateway served it, and its garbage collections’ time per message by service and kind (from each service’s `homing_db_queries_total`, `homing_rpc_client_duration_seconds`, `homing_rpc_server_duration_seconds`, `homing_http_request_duration_seconds` and `nodejs_gc_duration_seconds_sum`):',
      '',
      `- ${workLine(rows.at(-1).system.work).join('; ')}`,
      '',
      `- Command: \`npm run bench -- b3 --rounds ${rounds} --messages ${messages}\` (after \`npm run build\`). Open loop at ${RATE} messages a second, each to an item of its own owner (claimed first), from an address of its own${withKeys ? ' with an Idempotency-Key, as the web app sends' : ', without an Idempotency-Key (`--keys off`)'}; latency from sending the POST to the SMTP sink accepting the owner's mail. Plain pipeline, same-hops pipeline (\`tests/bench/same-hops-pipeline.mjs\`) and product in turn each round. Every process on core 0 (services, a private nats-server and redis-server, both reference pipelines); the machine's PostgreSQL.`,
      machineLine(),
      `- Date: ${new Date().toISOString()}`,
    ].join('\n'),
    [
      summaryRow('B3 message end to end p50 (vs plain pipeline)', formatRatio(figures.p50), `≤ ${GOALS.p50}×`, pass.p50),
      summaryRow('B3 message end to end p99 (vs plain pipeline)', formatRatio(figures.p99), `≤ ${GOALS.p99}×`, pass.p99),
      summaryRow('B3 lost / duplicated e-mails', `${lost} / ${duplicated}`, '0 / 0', pass.exact),
    ],
  );
  }
} finally {
  redis?.disconnect();
  await stopAll();
  sink.close();
  if (db) {
    for (const schema of [...SERVICES.map(schemaOf), `pipeline_${namespace}`, `samehops_${namespace}`]) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  }
  rmSync(work, { recursive: true, force: true });
}
