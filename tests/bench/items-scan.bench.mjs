#!/usr/bin/env node
// L1 (RELIABILITY.md): GET /api/v1/items/{code}, the tag scan, at fixed request rates through gateway → NATS →
// items → PostgreSQL. Starts its own built services in an isolated schema and NATS namespace; prints p50/p99 and
// errors per rate, and the highest rate with p99 under 100 ms. Usage: npm run bench [-- --rates 250,500,1000 --seconds 10]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import autocannon from 'autocannon';
import { benchKeys } from './bench-env.mjs';
import { nodeOptionsEnv } from '../../deploy/dev/node-options.mjs';
import { ensureDatabase, freePort, option, root } from './harness.mjs';

const rates = option('rates', '250,500,1000,2000').split(',').map(Number);
const seconds = Number(option('seconds', '10'));

const namespace = `bench_${randomBytes(3).toString('hex')}`;
const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test',
  NATS_URL: process.env.NATS_URL ?? process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
  NATS_NAMESPACE: namespace,
  DATABASE_SCHEMA: `items_${namespace}`,
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
  ...benchKeys(),
};

function run(app, command, extraEnv = {}) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [resolve(root, 'dist/apps', app, 'main.js'), ...command], { env: { ...env, ...extraEnv } });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.pipe(process.stderr);
    child.on('exit', (code) => (code === 0 ? done(out) : fail(new Error(`${app} ${command.join(' ')} exited ${code}`))));
  });
}

async function start(app, port, extraEnv = {}) {
  const child = spawn(process.execPath, [resolve(root, 'dist/apps', app, 'main.js')], { env: { ...env, ...extraEnv, ...nodeOptionsEnv(app), PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.ok, () => false);
    if (ready) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`${app} did not become ready`);
}

const children = [];
// The database is created if this machine has none yet (a fresh machine has only PostgreSQL's own).
const db = await ensureDatabase(env.DATABASE_URL);
try {
  await run('items', ['migrate']);
  const codes = (await run('items', ['seed-tags', '--count', '1000'])).trim().split('\n');
  children.push(await start('items', await freePort()));
  const gatewayPort = await freePort();
  children.push(await start('gateway', gatewayPort));

  console.log(`GET /api/v1/items/{code}, ${codes.length} tags, ${seconds} s per rate\n`);
  console.log('rate/s  achieved/s   p50 ms   p99 ms   errors/non-2xx');
  let best = 0;
  for (const rate of rates) {
    let next = 0;
    const result = await autocannon({
      url: `http://127.0.0.1:${gatewayPort}`,
      connections: 10,
      overallRate: rate,
      duration: seconds,
      requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: `/api/v1/items/${codes[next++ % codes.length]}` }) }],
    });
    const failures = result.errors + result.non2xx;
    console.log(
      `${String(rate).padStart(6)}  ${result.requests.average.toFixed(0).padStart(10)}  ${result.latency.p50.toFixed(1).padStart(7)}  ${result.latency.p99.toFixed(1).padStart(7)}   ${failures}`,
    );
    if (result.latency.p99 < 100 && failures === 0 && result.requests.average >= rate * 0.95) best = rate;
  }
  console.log(`\nhighest tested rate with p99 < 100 ms and no errors: ${best || 'none'} req/s`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await db.query(`DROP SCHEMA IF EXISTS "${env.DATABASE_SCHEMA}" CASCADE`);
  await db.end();
  const nc = await connect({ servers: env.NATS_URL });
  const jsm = await jetstreamManager(nc);
  for await (const stream of jsm.streams.list()) {
    if (stream.config.name.startsWith(`${namespace.toUpperCase()}_`)) await jsm.streams.delete(stream.config.name);
  }
  await nc.close();
}
