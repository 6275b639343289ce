#!/usr/bin/env node
// B4: owners polling with nothing new. CPU per empty poll, GET /api/v1/items/{code}/messages?after=<newest id> with
// the owner's token, summed over every process that serves it (gateway, a private redis-server for the rate limit
// and revocation checks, messaging, items, a private nats-server, their PostgreSQL backends), against an in-process
// "anything new since N?" handler (bare Fastify verifying the same token, the newest id per item from memory).
// Each owner polls from an address of their own (X-Forwarded-For behind a trusted proxy), as owners do. Goal ≤ 2.5×.
// Usage: npm run bench -- b4 [--rounds 3 --requests 4000 --owners 150] [--smoke]
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { TextDecoderStream } from 'node:stream/web';
import { join, resolve } from 'node:path';
import { connect } from '@nats-io/transport-node';
import jwt from 'jsonwebtoken';
import { benchKeys } from './bench-env.mjs';
import { backendsOf, breakdown, ensureDatabase, figureOf, formatRatio, freePort, loadPinned, machineLine, measureCpu, median, option, root, smoke, startPinned, startServicePinned, stopAll, summaryRow, waitReady, writeSection } from './harness.mjs';

const rounds = Number(option('rounds', smoke ? '1' : '3'));
const requests = Number(option('requests', smoke ? '300' : '4000'));
const owners = Number(option('owners', smoke ? '20' : '150'));
const connections = Number(option('connections', '10'));
const GOAL = 2.5;
const SSE_GOAL_MS = 50;
// Messages a second to the open streams, and how many.
const SSE_RATE = 20;
const SSE_MESSAGES = smoke ? 20 : 300;

const namespace = `bench_${randomBytes(3).toString('hex')}`;
const schemaOf = (service) => `${service}_${namespace}`;
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test';
const work = mkdtempSync(join(tmpdir(), 'homing-b4-'));

async function call(base, method, path, { token, body, finderToken } = {}) {
  const headers = { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}), ...(finderToken ? { 'x-finder-token': finderToken } : {}) };
  const response = await fetch(`${base}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

let db;
try {
  const keys = benchKeys();
  const [natsPort, redisPort] = [await freePort(), await freePort()];
  const nats = startPinned('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(work, 'jetstream')], {}, 'ignore');
  const redis = startPinned('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {}, 'ignore');
  const shared = { DATABASE_URL: databaseUrl, NATS_URL: `nats://127.0.0.1:${natsPort}`, NATS_NAMESPACE: namespace, REDIS_URL: `redis://127.0.0.1:${redisPort}`, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...keys };
  db = await ensureDatabase(databaseUrl);
  for (const service of ['items', 'messaging']) {
    execFileSync(process.execPath, [resolve(root, 'dist/apps', service, 'main.js'), 'migrate'], { env: { ...process.env, ...shared, DATABASE_SCHEMA: schemaOf(service) }, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const [itemsPort, messagingPort, gatewayPort, baselinePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const items = startServicePinned('items', { ...shared, DATABASE_SCHEMA: schemaOf('items'), PORT: String(itemsPort) });
  const messaging = startServicePinned('messaging', { ...shared, DATABASE_SCHEMA: schemaOf('messaging'), PORT: String(messagingPort) });
  const gateway = startServicePinned('gateway', { ...shared, PORT: String(gatewayPort), TRUSTED_PROXIES: '127.0.0.1' });
  await Promise.all([itemsPort, messagingPort, gatewayPort].map((port) => waitReady(`http://127.0.0.1:${port}/health/ready`)));
  const api = `http://127.0.0.1:${gatewayPort}/api/v1`;

  // Owners, each with an item that a finder wrote about: the gateway has seen its newest message in an event.
  const polls = [];
  const latest = {};
  for (let index = 0; index < owners; index += 1) {
    const id = randomUUID();
    const token = jwt.sign({ id, email: `${id}@bench.test`, is_admin: false, sid: randomUUID(), jti: randomUUID(), iss: 'homing-identity', aud: 'homing' }, keys.JWT_PRIVATE_KEY, { algorithm: 'ES256', expiresIn: '1h' });
    const created = await call(api, 'POST', '/items', { token, body: { name: `Item ${index}` } });
    if (created.status !== 201) throw new Error(`POST /items: ${created.status}`);
    const code = created.body.code;
    // Messaging learns the owner from items' event.
    while ((await call(api, 'GET', `/user/items/${code}/unread-count`, { token })).status !== 200) await new Promise((done) => setTimeout(done, 20));
    const written = await call(api, 'POST', `/items/${code}/messages`, { body: { content: 'I found it at the station.' } });
    if (written.status !== 201) throw new Error(`POST messages: ${written.status}`);
    const newest = written.body.message.id;
    latest[code] = newest;
    polls.push({ code, newest, headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}` } });
  }
  const pollsFile = join(work, 'polls.json');
  writeFileSync(pollsFile, JSON.stringify(polls.map(({ code, newest, headers }) => ({ path: `/api/v1/items/${code}/messages?after=${newest}`, headers }))));
  const baselinePollsFile = join(work, 'baseline-polls.json');
  writeFileSync(baselinePollsFile, JSON.stringify(polls.map(({ code, newest, headers }) => ({ path: `/poll/api/v1/items/${code}/messages?after=${newest}`, headers }))));
  const latestFile = join(work, 'latest.json');
  writeFileSync(latestFile, JSON.stringify(latest));
  const baseline = startPinned(process.execPath, [resolve(import.meta.dirname, 'baseline-server.mjs')], { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schemaOf('items'), PORT: String(baselinePort), POLL_LATEST_FILE: latestFile, JWT_PUBLIC_KEY: keys.JWT_PUBLIC_KEY });
  await waitReady(`http://127.0.0.1:${baselinePort}/health/ready`);
  // Every poll answered [] with nothing newer (the gateway's watermark), not a list from messaging.
  const check = await fetch(`${api}/items/${polls[0].code}/messages?after=${polls[0].newest}`, { headers: polls[0].headers });
  if (check.status !== 200 || (await check.text()) !== '[]') throw new Error(`an empty poll answered ${check.status}`);

  const send = (port, file) => (amount) => loadPinned({ url: `http://127.0.0.1:${port}`, path: '', codesFile: file, requests: amount, connections });
  const product = async () => [
    { name: 'gateway', pid: gateway.pid },
    { name: 'redis', pid: redis.pid },
    { name: 'messaging', pid: messaging.pid },
    { name: 'items', pid: items.pid },
    { name: 'nats', pid: nats.pid },
    ...(await backendsOf(db, messaging.pid)).map((pid) => ({ name: 'postgres', pid })),
    ...(await backendsOf(db, items.pid)).map((pid) => ({ name: 'postgres', pid })),
  ];
  console.log(`B4: ${requests} empty polls per round over ${owners} owners, ${connections} connections, servers on core 0, load on core 1\n`);
  console.log('round   in-process µs/poll (req/s)   product µs/poll (req/s)   ratio   product by process');
  const rows = [];
  for (let round = 1; round <= rounds; round += 1) {
    const base = await measureCpu({ name: 'in-process', processes: [{ name: 'fastify', pid: baseline.pid }], send: send(baselinePort, baselinePollsFile), requests });
    const polled = await measureCpu({ name: 'product', processes: product, send: send(gatewayPort, pollsFile), requests, warmUp: Math.max(owners * 3, 500) });
    const ratio = polled.microsPerRequest / base.microsPerRequest;
    rows.push({ round, base, polled, ratio });
    console.log(`${String(round).padStart(5)}   ${base.microsPerRequest.toFixed(0).padStart(10)} (${base.rps.toFixed(0)})   ${polled.microsPerRequest.toFixed(0).padStart(10)} (${polled.rps.toFixed(0)})   ${ratio.toFixed(2)}×   ${breakdown(polled)}`);
  }
  const sse = await measureStreams(api, polls, namespace, shared.NATS_URL);
  console.log(`\nSSE: ${sse.samples} messages to ${sse.streams} open owner streams, event → client p50 ${sse.p50.toFixed(1)} ms, p99 ${sse.p99.toFixed(1)} ms, max ${sse.max.toFixed(1)} ms`);
  const figure = figureOf(rows.map((row) => row.ratio));
  const pass = figure.median <= GOAL;
  const ownersPerCore = 3_000_000 / figure.median / median(rows.map((row) => row.base.microsPerRequest));
  console.log(`\nB4 = ${formatRatio(figure)}; goal ≤ ${GOAL}×: ${smoke ? 'smoke run, not judged' : pass ? 'PASS' : 'MISS'} (about ${ownersPerCore.toFixed(0)} owners polling every 3 s per core)`);
  writeSection(
    'b4',
    [
      '## B4: owners polling with nothing new (latest run)',
      '',
      `- **B4 empty poll CPU = ${formatRatio(figure)}** of the in-process handler, goal ≤ ${GOAL}×: **${pass ? 'pass' : 'miss'}** (about ${ownersPerCore.toFixed(0)} owners polling every 3 s per core of the product's CPU)`,
      `- **B4 SSE event → client p99 = ${sse.p99.toFixed(1)} ms** (p50 ${sse.p50.toFixed(1)} ms, max ${sse.max.toFixed(1)} ms; ${sse.samples} messages at ${SSE_RATE}/s to ${sse.streams} open owner streams), goal ≤ ${SSE_GOAL_MS} ms: **${sse.p99 <= SSE_GOAL_MS ? 'pass' : 'miss'}**. From the moment \`messaging.message.created.v1\` reaches a NATS subscriber in the bench to the moment the owner's stream delivers the message, both seen by the bench process.`,
      '',
      '| round | in-process µs/poll (req/s) | product µs/poll (req/s) | ratio | product µs/poll by process |',
      '|---|---|---|---|---|',
      ...rows.map(({ round, base, polled, ratio }) => `| ${round} | ${base.microsPerRequest.toFixed(0)} (${base.rps.toFixed(0)}) | ${polled.microsPerRequest.toFixed(0)} (${polled.rps.toFixed(0)}) | ${ratio.toFixed(2)}× | ${breakdown(polled)} |`),
      '',
      `- Command: \`npm run bench -- b4 --rounds ${rounds} --requests ${requests} --owners ${owners}\` (after \`npm run build\`). Each owner has one item with a finder's message and polls \`after=<newest id>\` with their own token from their own address; the baseline verifies the same ES256 token with jsonwebtoken and compares with the newest id held in memory.`,
      machineLine(),
      `- Date: ${new Date().toISOString()}`,
    ].join('\n'),
    [
      summaryRow('B4 empty owner poll CPU (vs in-process handler)', formatRatio(figure), `≤ ${GOAL}×`, pass),
      summaryRow('B4 SSE event → client p99', `${sse.p99.toFixed(1)} ms`, `≤ ${SSE_GOAL_MS} ms`, sse.p99 <= SSE_GOAL_MS),
    ],
  );
} finally {
  await stopAll();
  if (db) {
    for (const service of ['items', 'messaging']) await db.query(`DROP SCHEMA IF EXISTS "${schemaOf(service)}" CASCADE`);
    await db.end();
  }
  rmSync(work, { recursive: true, force: true });
}


/**
 * Owners' open streams (GET messages/stream, read with fetch as the web app does) while finders write at SSE_RATE a
 * second: for each message, from its event on NATS to its arrival on the owner's stream.
 */
async function measureStreams(api, polls, namespace, natsUrl) {
  const streamed = polls.slice(0, Math.min(50, polls.length));
  const eventAt = new Map();
  const arrivedAt = new Map();
  const nc = await connect({ servers: natsUrl });
  nc.subscribe(`${namespace}.messaging.message.created.v1`, { callback: (_error, msg) => void eventAt.set(String(msg.json().data.messageId), performance.now()) });
  await nc.flush();
  const aborts = [];
  for (const { code, headers } of streamed) {
    const abort = new AbortController();
    aborts.push(abort);
    const response = await fetch(`${api}/items/${code}/messages/stream`, { headers: { authorization: headers.authorization, 'x-forwarded-for': headers['x-forwarded-for'], accept: 'text/event-stream' }, signal: abort.signal });
    if (response.status !== 200) throw new Error(`stream: ${response.status}`);
    void (async () => {
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = '';
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          buffered += value;
          const now = performance.now();
          // Complete events only: a block ends with a blank line.
          const end = buffered.lastIndexOf('\n\n');
          if (end < 0) continue;
          for (const match of buffered.slice(0, end).matchAll(/^id: ?(\d+)$/gm)) if (!arrivedAt.has(match[1])) arrivedAt.set(match[1], now);
          buffered = buffered.slice(end + 2);
        }
      } catch {
        // Aborted at the end.
      }
    })();
  }
  const written = [];
  for (let index = 0; index < SSE_MESSAGES; index += 1) {
    const started = performance.now();
    const { code } = streamed[index % streamed.length];
    // A finder of their own each time, from an address of their own (the spam limits count per address and tag).
    const response = await fetch(`${api}/items/${code}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `172.16.${(index >> 8) & 255}.${index & 255}` },
      body: JSON.stringify({ content: `Found it, message ${index}.` }),
    });
    if (response.status !== 201) throw new Error(`POST messages: ${response.status}`);
    written.push(String((await response.json()).message.id));
    await new Promise((done) => setTimeout(done, Math.max(0, 1000 / SSE_RATE - (performance.now() - started))));
  }
  const deadline = performance.now() + 5000;
  while (written.some((id) => !arrivedAt.has(id) || !eventAt.has(id)) && performance.now() < deadline) await new Promise((done) => setTimeout(done, 20));
  for (const abort of aborts) abort.abort();
  await nc.close();
  const missing = written.filter((id) => !arrivedAt.has(id) || !eventAt.has(id));
  if (missing.length) throw new Error(`${missing.length} messages never reached their stream`);
  const latencies = written.map((id) => Math.max(0, arrivedAt.get(id) - eventAt.get(id))).sort((a, b) => a - b);
  const at = (share) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))];
  return { samples: latencies.length, streams: streamed.length, p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] };
}
