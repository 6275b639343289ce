#!/usr/bin/env node
// `npm test`: every tier, in the order that fails fastest. Each tier is also its own npm script.
import { spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';

const tiers = [
  // Projects through Nx; the cross-project suites, scripts and deploy files directly.
  ['lint', 'npx nx run-many -t lint --parallel=2 --outputStyle=static && npx eslint tests deploy tools "*.js" "*.mjs"'],
  ['typecheck', 'npx nx run-many -t typecheck --parallel=2 --outputStyle=static && npx tsc -p tests/tsconfig.json'],
  ['unit', 'npm run test:unit'],
  ['build', 'npx nx run-many -t build --parallel=2 --outputStyle=static'],
  // Every benchmark for a few seconds against the build, judging nothing, so that benchmarks keep working.
  ['bench-smoke', 'npm run bench -- --smoke'],
  ['integration', 'npm run test:integration'],
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
for (const [name, command] of tiers) {
  if (only.length > 0 && !only.includes(name)) continue;
  console.log(`\n▶ ${name}: ${command}`);
  const begin = Date.now();
  const { status } = spawnSync(command, { stdio: 'inherit', shell: true, env: process.env });
  const seconds = ((Date.now() - begin) / 1000).toFixed(1);
  report.push(`${status === 0 ? '✔' : '✖'} ${name.padEnd(12)} ${seconds.padStart(6)} s`);
  if (status !== 0) {
    console.error(`\n${report.join('\n')}\n\n${name} failed.`);
    process.exit(status ?? 1);
  }
}
console.log(`\n${report.join('\n')}\n\nAll tiers passed in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
