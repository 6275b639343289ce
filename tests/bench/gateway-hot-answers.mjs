#!/usr/bin/env node
// The gateway alone answering hot codes from memory: its CPU per request, and optionally its V8 CPU profile. A finer
// tool than B1's and B6's ratios for a change to the gateway's cached scan or QR image, whose few microseconds drown
// in those benchmarks' round-to-round swing. Not part of `npm run bench`; compare builds by running it against each.
// Items and a private nats-server run behind the gateway (the codes are looked up once, then answered from memory).
// '/found/{code}' measures the finder page a first visit gets, with the web build's server entry (`npm run build`), of
// claimed tags (an unclaimed one's page is a redirect to its claim).
// Usage: node tests/bench/gateway-hot-answers.mjs [--path '/qr/{code}' | '/api/v1/items/{code}' | '/found/{code}'] [--requests 60000]
//        [--rounds 3] [--cpu-prof DIR]   (then: node tests/bench/profile-summary.mjs DIR/*.cpuprofile --skip 8)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchKeys } from './bench-env.mjs';
import { cpuMicros, ensureDatabase, freePort, loadPinned, option, runItems, seedCodeFiles, startPinned, startServicePinned, stopAll, waitReady } from './harness.mjs';

const path = option('path', '/qr/{code}');
const requests = Number(option('requests', '60000'));
const rounds = Number(option('rounds', '3'));
const profileDir = option('cpu-prof', undefined);
const namespace = `bench_${randomBytes(3).toString('hex')}`;
const schema = `items_${namespace}`;
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test';
const work = mkdtempSync(join(tmpdir(), 'homing-hot-'));

let db;
try {
  const natsPort = await freePort();
  startPinned('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(work, 'jetstream')], {}, 'ignore');
  const env = { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, NATS_URL: `nats://127.0.0.1:${natsPort}`, NATS_NAMESPACE: namespace, NODE_ENV: 'production', PUBLIC_URL: 'http://localhost:8080', ...benchKeys() };
  db = await ensureDatabase(databaseUrl);
  runItems(['migrate'], env);
  const seeded = await seedCodeFiles(db, schema, { rows: 2000, hotTags: 50, work });
  let { hotFile } = seeded;
  if (path.startsWith('/found/')) {
    // seedItems claims every second row.
    hotFile = join(work, 'claimed-hot-codes.txt');
    writeFileSync(hotFile, seeded.codes.filter((_, index) => index % 2 === 1).slice(0, 50).join('\n'));
  }
  const [itemsPort, gatewayPort] = [await freePort(), await freePort()];
  startServicePinned('items', { ...env, PORT: String(itemsPort) });
  const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
  const gateway = startServicePinned('gateway', { ...env, PORT: String(gatewayPort), TRUSTED_PROXIES: '127.0.0.1', WEB_DIST: resolve(import.meta.dirname, '../../dist/apps/web') }, profiling);
  await Promise.all([itemsPort, gatewayPort].map((port) => waitReady(`http://127.0.0.1:${port}/health/ready`)));
  const send = (amount) => loadPinned({ url: `http://127.0.0.1:${gatewayPort}`, path, codesFile: hotFile, requests: amount, connections: 10, spreadAddresses: true });
  const cpu = () => {
    const { user, system } = cpuMicros(gateway.pid);
    return user + system;
  };
  // Warm-up: every hot code looked up and its answer made, the code compiled.
  await send(5000);
  for (let round = 1; round <= rounds; round += 1) {
    const before = cpu();
    await send(requests);
    console.log(`${path} round ${round}: gateway ${((cpu() - before) / requests).toFixed(1)} µs a request`);
  }
} finally {
  await stopAll();
  if (db) {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.end();
  }
  rmSync(work, { recursive: true, force: true });
}
