#!/usr/bin/env node
// `npm test`: every tier, in the order that fails fastest. Each tier is also its own npm script.
import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';

const tiers = [
  // Projects through Nx; the cross-project suites, scripts and deploy files directly.
  ['lint', 'npx nx run-many -t lint --parallel=2 --outputStyle=static && npx eslint tests deploy tools "*.js" "*.mjs"'],
  ['typecheck', 'npm run typecheck'],
  ['unit', 'npm run test:unit'],
  ['build', 'npx nx run-many -t build --parallel=2 --outputStyle=static'],
  // Side by side, as each leaves a core idle about half of its time: every benchmark for a few seconds against the
  // build, judging nothing, so that benchmarks keep working; and the integration tests.
  [
    ['integration', 'npm run test:integration'],
    ['bench-smoke', 'npm run bench -- --smoke'],
  ],
  ['e2e', 'npm run test:e2e'],
  ['web-e2e', 'npm run test:web-e2e'],
  // Reliability at small sizes: private nats-server, redis-server and PostgreSQL, faulted (tests/fault).
  ['fault', 'npm run test:fault'],
];

// Tests use real PostgreSQL, NATS and Redis (libs/testing). Unless TEST_* URLs are given, use the services on
// localhost when they answer; otherwise libs/testing explains what is missing.
const localServices = {
  TEST_DATABASE_URL: ['postgres://postgres@127.0.0.1:5432/homing_test', 5432],
  TEST_NATS_URL: ['nats://127.0.0.1:4222', 4222],
  TEST_REDIS_URL: ['redis://127.0.0.1:6379', 6379],
};

function answers(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port, timeout: 1000 });
    socket.once('connect', () => resolve(socket.destroy() || true));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => resolve(socket.destroy() && false));
  });
}

for (const [name, [url, port]] of Object.entries(localServices)) {
  if (!process.env[name] && (await answers(port))) process.env[name] = url;
}

const only = process.argv.slice(2);
const started = Date.now();
const report = [];

/**
 * Runs a tier's command and resolves with its exit status. The first tier of a group prints as it goes; the others'
 * output is held and printed whole when they end, so that two tiers' lines never interleave.
 */
function run(name, command, live) {
  console.log(`\n▶ ${name}: ${command}${live ? '' : ' (alongside; its output follows when it ends)'}`);
  const begin = Date.now();
  const child = spawn(command, { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'], shell: true, env: process.env });
  const held = [];
  child.stdout?.on('data', (chunk) => held.push(chunk));
  child.stderr?.on('data', (chunk) => held.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (status) => {
      if (!live) process.stdout.write(`\n▶ ${name} (output)\n${Buffer.concat(held).toString()}`);
      const seconds = ((Date.now() - begin) / 1000).toFixed(1);
      report.push(`${status === 0 ? '✔' : '✖'} ${name.padEnd(12)} ${seconds.padStart(6)} s`);
      resolve(status ?? 1);
    });
  });
}

for (const entry of tiers) {
  const group = (typeof entry[0] === 'string' ? [entry] : entry).filter(([name]) => only.length === 0 || only.includes(name));
  if (group.length === 0) continue;
  const statuses = await Promise.all(group.map(([name, command], index) => run(name, command, index === 0)));
  const failed = group.filter((_, index) => statuses[index] !== 0).map(([name]) => name);
  if (failed.length > 0) {
    console.error(`\n${report.join('\n')}\n\n${failed.join(' and ')} failed.`);
    process.exit(1);
  }
}
console.log(`\n${report.join('\n')}\n\nAll tiers passed in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
