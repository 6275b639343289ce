#!/usr/bin/env node
// What a service spends answering one RPC: its CPU per request for `identity.rpc.get-user` (the lookup every e-mail to
// a user makes, B3), asked over a private nats-server by this process from the load core, 10 at a time. A finer tool
// than B3's ratios for a change to the RPC server (libs/platform's NatsRpcServer) or a handler, whose tens of
// microseconds drown in B3's round-to-round swing. Not part of `npm run bench`; compare builds by running it against each.
// Usage: node tests/bench/rpc-server-cost.mjs [--requests 20000] [--rounds 3] [--cpu-prof DIR]
//        (then: node tests/bench/profile-summary.mjs DIR/*.cpuprofile --skip 8)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TextDecoder, TextEncoder } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { benchKeys } from './bench-env.mjs';
import { cpuMicros, ensureDatabase, freePort, option, root, startPinned, startServicePinned, stopAll, waitReady } from './harness.mjs';

const requests = Number(option('requests', '20000'));
const rounds = Number(option('rounds', '3'));
const profileDir = option('cpu-prof', undefined);
const CONCURRENCY = 10;
const namespace = `bench_${randomBytes(3).toString('hex')}`;
const schema = `identity_${namespace}`;
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test';
const work = mkdtempSync(join(tmpdir(), 'homing-rpc-'));
const encoder = new TextEncoder();
const decoder = new TextDecoder();

let db;
let nc;
try {
  const [natsPort, identityPort] = [await freePort(), await freePort()];
  startPinned('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(work, 'jetstream')], {}, 'ignore');
  const env = { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, NATS_URL: `nats://127.0.0.1:${natsPort}`, NATS_NAMESPACE: namespace, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...benchKeys() };
  db = await ensureDatabase(databaseUrl);
  execFileSync(process.execPath, [resolve(root, 'dist/apps/identity/main.js'), 'migrate'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
  const identity = startServicePinned('identity', { ...env, PORT: String(identityPort) }, profiling);
  await waitReady(`http://127.0.0.1:${identityPort}/health/ready`);
  nc = await connect({ servers: `127.0.0.1:${natsPort}` });
  const ask = async (subject, payload) => {
    const reply = await nc.request(`${namespace}.${subject}`, encoder.encode(JSON.stringify(payload)), { timeout: 5000 });
    return JSON.parse(decoder.decode(reply.data));
  };
  // The RPC server subscribes once NATS is connected, which may follow readiness: ask until it answers.
  let user;
  for (let attempt = 0; !user?.userId; attempt += 1) {
    user = await ask('identity.rpc.ensure-user', { email: `owner-${namespace}@homing.test`, language: 'en' }).catch((error) => (attempt < 100 ? undefined : Promise.reject(error)));
    if (!user?.userId) await new Promise((done) => setTimeout(done, 100));
  }
  const payload = { userId: user.userId };
  const send = async (amount) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < amount) {
          next += 1;
          const answer = await ask('identity.rpc.get-user', payload);
          if (answer.email === undefined) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
        }
      }),
    );
  };
  const cpu = () => {
    const { user: utime, system } = cpuMicros(identity.pid);
    return utime + system;
  };
  await send(Math.max(2000, requests / 5));
  for (let round = 1; round <= rounds; round += 1) {
    const before = cpu();
    const started = performance.now();
    await send(requests);
    const seconds = (performance.now() - started) / 1000;
    console.log(`identity.rpc.get-user round ${round}: identity ${((cpu() - before) / requests).toFixed(1)} µs a request (${(requests / seconds).toFixed(0)} a second)`);
  }
} finally {
  await nc?.close();
  await stopAll();
  if (db) {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.end();
  }
  rmSync(work, { recursive: true, force: true });
}
