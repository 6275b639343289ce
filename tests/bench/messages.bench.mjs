#!/usr/bin/env node
// B3: a finder's message end to end, POST /api/v1/items/{code}/messages → the owner's e-mail accepted by an SMTP
// sink, sent open loop at 50 messages a second, against the plain pipeline (pipeline-baseline.mjs: pg insert →
// JetStream → BullMQ → pooled nodemailer SMTP) fed the same way, in alternating rounds. Latency from each POST's
// sending to its mail's acceptance, matched by recipient (one owner per message). Goals: p50 ≤ 1.5×, p99 ≤ 2× the
// plain pipeline; none lost, none duplicated.
// Usage: npm run bench -- b3 [--rounds 3 --messages 200] [--smoke]
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { benchKeys } from './bench-env.mjs';
import { ensureDatabase, figureOf, formatRatio, freePort, machineLine, option, root, smoke, startPinned, stopAll, summaryRow, waitReady, writeSection } from './harness.mjs';

const rounds = Number(option('rounds', smoke ? '1' : '3'));
const messages = Number(option('messages', smoke ? '20' : '200'));
const RATE = 50;
const GOALS = { p50: 1.5, p99: 2 };
const SERVICES = ['identity', 'items', 'messaging', 'notifications'];

const namespace = `bench_${randomBytes(3).toString('hex')}`;
const schemaOf = (service) => `${service}_${namespace}`;
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test';
const work = mkdtempSync(join(tmpdir(), 'homing-b3-'));
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// The sink: when each recipient's mail was accepted (every acceptance counted, to find duplicates).
const accepted = new Map();
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, callback) {
    stream.resume();
    stream.on('end', () => {
      const now = performance.now();
      for (const { address } of session.envelope.rcptTo) accepted.set(address, [...(accepted.get(address) ?? []), now]);
      callback();
    });
  },
});
const smtpPort = await freePort();
await new Promise((done) => sink.listen(smtpPort, '127.0.0.1', done));

/** Sends one message per recipient at RATE a second without waiting for answers; latencies of their mails. */
async function openLoop(recipients, post) {
  const sentAt = new Map();
  const answers = [];
  const started = performance.now();
  for (const [index, recipient] of recipients.entries()) {
    await sleep(Math.max(0, started + (index * 1000) / RATE - performance.now()));
    sentAt.set(recipient, performance.now());
    answers.push(post(recipient, index));
  }
  const statuses = await Promise.all(answers);
  const failed = statuses.filter((status) => status !== 201).length;
  const deadline = performance.now() + 30_000;
  while (recipients.some((recipient) => !accepted.has(recipient)) && performance.now() < deadline) await sleep(50);
  await sleep(500);
  const latencies = recipients.filter((recipient) => accepted.has(recipient)).map((recipient) => accepted.get(recipient)[0] - sentAt.get(recipient)).sort((a, b) => a - b);
  const at = (share) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))];
  return {
    p50: at(0.5),
    p99: at(0.99),
    lost: recipients.filter((recipient) => !accepted.has(recipient)).length,
    duplicated: recipients.filter((recipient) => (accepted.get(recipient)?.length ?? 0) > 1).length,
    failed,
  };
}

let db;
try {
  const keys = benchKeys();
  const [natsPort, redisPort] = [await freePort(), await freePort()];
  startPinned('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(work, 'jetstream')], {}, 'ignore');
  startPinned('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {}, 'ignore');
  const shared = { DATABASE_URL: databaseUrl, NATS_URL: `nats://127.0.0.1:${natsPort}`, NATS_NAMESPACE: namespace, REDIS_URL: `redis://127.0.0.1:${redisPort}`, NODE_ENV: 'test', LOG_LEVEL: 'warn', SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...keys };
  const envOf = (service) => ({ ...shared, DATABASE_SCHEMA: schemaOf(service), ...(service === 'notifications' ? { NOTIFICATIONS_ROLE: 'all' } : {}) });
  db = await ensureDatabase(databaseUrl);
  for (const service of SERVICES) execFileSync(process.execPath, [resolve(root, 'dist/apps', service, 'main.js'), 'migrate'], { env: { ...process.env, ...envOf(service) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const owners = messages * rounds;
  const codes = execFileSync(process.execPath, [resolve(root, 'dist/apps/items/main.js'), 'seed-tags', '--count', String(owners)], { env: { ...process.env, ...envOf('items') }, encoding: 'utf8' }).trim().split('\n');
  const ports = {};
  for (const service of [...SERVICES, 'gateway', 'baseline']) ports[service] = await freePort();
  for (const service of SERVICES) startPinned(process.execPath, [resolve(root, 'dist/apps', service, 'main.js')], { ...envOf(service), PORT: String(ports[service]) });
  startPinned(process.execPath, [resolve(root, 'dist/apps/gateway/main.js')], { ...shared, PORT: String(ports.gateway), TRUSTED_PROXIES: '127.0.0.1' });
  startPinned(process.execPath, [resolve(import.meta.dirname, 'pipeline-baseline.mjs')], { ...shared, PORT: String(ports.baseline), DATABASE_SCHEMA: `pipeline_${namespace}`, STREAM: `PIPELINE_${namespace.toUpperCase()}` });
  await Promise.all(Object.values(ports).map((port) => waitReady(`http://127.0.0.1:${port}/health/ready`)));
  const api = `http://127.0.0.1:${ports.gateway}/api/v1`;
  const address = (index) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

  // One owner per message (an owner's mail is coalesced per conversation, and each is matched by its recipient).
  const ownerOf = new Map();
  for (const [index, code] of codes.entries()) {
    const email = `owner-${index}-${namespace}@bench.test`;
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

  const recipients = [...ownerOf.keys()];
  const product = (recipient, index) =>
    fetch(`${api}/items/${ownerOf.get(recipient)}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address(100_000 + index) },
      body: JSON.stringify({ content: 'I found your keys at the station.' }),
    }).then((response) => response.status);
  const baseline = (recipient) =>
    fetch(`http://127.0.0.1:${ports.baseline}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ itemCode: ownerOf.get(recipient), recipient: `plain-${recipient}`, content: 'I found your keys at the station.' }),
    }).then((response) => response.status);

  console.log(`B3: ${messages} messages per round at ${RATE}/s, one owner each; product and plain pipeline alternating\n`);
  console.log('round   plain p50/p99 ms   product p50/p99 ms   ratios p50/p99   lost/duplicated/failed (product; plain)');
  const rows = [];
  for (let round = 0; round < rounds; round += 1) {
    const batch = recipients.slice(round * messages, (round + 1) * messages);
    const plain = await openLoop(batch.map((recipient) => `plain-${recipient}`), (plainRecipient) => baseline(plainRecipient.slice('plain-'.length)));
    const system = await openLoop(batch, product);
    const ratios = { p50: system.p50 / plain.p50, p99: system.p99 / plain.p99 };
    rows.push({ round: round + 1, plain, system, ratios });
    console.log(
      `${String(round + 1).padStart(5)}   ${plain.p50.toFixed(1)}/${plain.p99.toFixed(1)}   ${system.p50.toFixed(1)}/${system.p99.toFixed(1)}   ${ratios.p50.toFixed(2)}×/${ratios.p99.toFixed(2)}×   ${system.lost}/${system.duplicated}/${system.failed}; ${plain.lost}/${plain.duplicated}/${plain.failed}`,
    );
  }
  const figures = { p50: figureOf(rows.map((row) => row.ratios.p50)), p99: figureOf(rows.map((row) => row.ratios.p99)) };
  const lost = rows.reduce((sum, row) => sum + row.system.lost, 0);
  const duplicated = rows.reduce((sum, row) => sum + row.system.duplicated, 0);
  const pass = { p50: figures.p50.median <= GOALS.p50, p99: figures.p99.median <= GOALS.p99, exact: lost === 0 && duplicated === 0 };
  console.log(`\nB3 p50 = ${formatRatio(figures.p50)} (goal ≤ ${GOALS.p50}×), p99 = ${formatRatio(figures.p99)} (goal ≤ ${GOALS.p99}×), lost ${lost}, duplicated ${duplicated}: ${smoke ? 'smoke run, not judged' : Object.values(pass).every(Boolean) ? 'PASS' : 'MISS'}`);
  writeSection(
    'b3',
    [
      '## B3: a finder’s message end to end (latest run)',
      '',
      `- **B3 p50 = ${formatRatio(figures.p50)}** of the plain pipeline, goal ≤ ${GOALS.p50}×: **${pass.p50 ? 'pass' : 'miss'}**`,
      `- **B3 p99 = ${formatRatio(figures.p99)}**, goal ≤ ${GOALS.p99}×: **${pass.p99 ? 'pass' : 'miss'}**`,
      `- Lost ${lost}, duplicated ${duplicated} (goal 0): **${pass.exact ? 'pass' : 'miss'}**`,
      '',
      '| round | plain p50 / p99 ms | product p50 / p99 ms | p50 ratio | p99 ratio | product lost / duplicated / failed POSTs |',
      '|---|---|---|---|---|---|',
      ...rows.map(({ round, plain, system, ratios }) => `| ${round} | ${plain.p50.toFixed(1)} / ${plain.p99.toFixed(1)} | ${system.p50.toFixed(1)} / ${system.p99.toFixed(1)} | ${ratios.p50.toFixed(2)}× | ${ratios.p99.toFixed(2)}× | ${system.lost} / ${system.duplicated} / ${system.failed} |`),
      '',
      `- Command: \`npm run bench -- b3 --rounds ${rounds} --messages ${messages}\` (after \`npm run build\`). Open loop at ${RATE} messages a second, each to an item of its own owner (claimed first), from an address of its own; latency from sending the POST to the SMTP sink accepting the owner's mail. Every process on core 0 (services, a private nats-server and redis-server, the plain pipeline); the machine's PostgreSQL.`,
      '- B5 (sustained messages a second without backlog growth) is not measured yet.',
      machineLine(),
      `- Date: ${new Date().toISOString()}`,
    ].join('\n'),
    [
      summaryRow('B3 message end to end p50 (vs plain pipeline)', formatRatio(figures.p50), `≤ ${GOALS.p50}×`, pass.p50),
      summaryRow('B3 message end to end p99 (vs plain pipeline)', formatRatio(figures.p99), `≤ ${GOALS.p99}×`, pass.p99),
      summaryRow('B3 lost / duplicated e-mails', `${lost} / ${duplicated}`, '0 / 0', pass.exact),
    ],
  );
} finally {
  await stopAll();
  sink.close();
  if (db) {
    for (const schema of [...SERVICES.map(schemaOf), `pipeline_${namespace}`]) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  }
  rmSync(work, { recursive: true, force: true });
}
