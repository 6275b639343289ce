#!/usr/bin/env node
// B8: footprint of the whole stack, each service against a raw Fastify service (tests/bench/baseline-server.mjs:
// Fastify + a pg pool) started the same way, in alternating rounds:
// - cold start: from spawn to the first 200 of /health/ready (a service is ready once PostgreSQL, NATS and Redis
//   answer); the figure is the slowest service's median ratio. Goal ≤ 2.5×.
// - memory: resident set (VmRSS) after 200 requests of warm-up; the figure is the largest service's median ratio.
//   Goal ≤ 1.5× (issue 29).
// - idle CPU: the whole stack (every service process) with nothing to do, as a share of one core. Goal < 1 %.
// - memory at rest (not a goal; it explains the memory figure): VmRSS of every service at the end of the idle window,
//   against a second raw Fastify started and warmed up once the services are, so that both have settled as long.
//   V8 grows a heap's young generation while what it allocates survives, as a start-up's modules, Nest's container
//   and the contracts' schemas all do, and gives it back (with the old generation's free pages) only once the process
//   has gone quiet: the memory figure above is taken before that.
// Usage: npm run bench -- b8 [--rounds 3 --idle-seconds 15 --settle-seconds 60 --cpu-prof DIR] [--smoke]
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchKeys } from './bench-env.mjs';
import { cpuMicros, ensureDatabase, figureOf, formatRatio, freePort, machineLine, option, residentBytes, root, smoke, startPinned, startServicePinned, stopAll, summaryRow, waitReady, writeSection } from './harness.mjs';

const rounds = Number(option('rounds', smoke ? '1' : '3'));
const idleSeconds = Number(option('idle-seconds', smoke ? '2' : '15'));
// Idle means steady. Once allocation stops, V8's memory reducer checks every 8 s whether the process has gone quiet
// and then shrinks the heap with up to three compacting collections, 60–190 ms of CPU in all (`--trace-gc`: the
// gateway's "Mark-Compact (reduce)" 60 → 44 MB, 16–26 s after its last request). Measured from 20 s, the last warmed
// service's collections fell in or out of the window from round to round (0.7–2.3 % of a core, against 0.4–0.7 %
// settled). With each service's first retention pass 5–15 s after its start (2026-11-27) and the services bundled, the
// reducer's collections came 13–50 s after a service's spawn (`--trace-gc` of every service, three rounds: the
// gateway's at 49.6 s fell in a window from 45 s, 0.87 % of a core for that service alone); from 60 s the window holds
// what the stack does with nothing to do.
const settleSeconds = Number(option('settle-seconds', smoke ? '1' : '60'));
// --cpu-prof DIR: every service writes a V8 CPU profile there when it stops; `profile-summary.mjs --skip S` with S past
// the start and the settling shows what the idle stack does.
const profileDir = option('cpu-prof', undefined);
const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
// Issue 29's figures.
const GOALS = { coldStart: 2.5, memory: 1.5, idleCpuPercent: 1 };
const SERVICES = ['identity', 'items', 'messaging', 'notifications', 'gateway'];

const namespace = `bench_${randomBytes(3).toString('hex')}`;
const schemaOf = (service) => `${service}_${namespace}`;
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test';
const redisUrl = process.env.REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const work = mkdtempSync(join(tmpdir(), 'homing-b8-'));

function stop(child) {
  return child.exitCode !== null ? undefined : new Promise((done) => (child.once('exit', done), setTimeout(done, 15_000).unref(), child.kill('SIGTERM')));
}

async function warmUp(port, path = '/health/ready') {
  for (let request = 0; request < 200; request += 1) await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.arrayBuffer());
}

/** A raw Fastify + pg server, ready and warmed up as the services are; with the milliseconds from spawn to ready. */
async function startWarmBaseline() {
  const port = await freePort();
  const started = performance.now();
  const child = startPinned(process.execPath, [resolve(import.meta.dirname, 'baseline-server.mjs')], { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schemaOf('items'), PORT: String(port) });
  await waitReady(`http://127.0.0.1:${port}/health/ready`);
  const startMs = performance.now() - started;
  await warmUp(port, `/api/v1/items/${'0'.repeat(16)}`);
  return { child, startMs };
}

let db;
try {
  const natsPort = await freePort();
  startPinned('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(work, 'jetstream')], {}, 'ignore');
  const keys = benchKeys();
  // NODE_ENV=test: the machine's Redis keeps nothing on disk, which production refuses (ARCHITECTURE §9).
  const shared = { DATABASE_URL: databaseUrl, NATS_URL: `nats://127.0.0.1:${natsPort}`, NATS_NAMESPACE: namespace, REDIS_URL: redisUrl, NODE_ENV: 'test', LOG_LEVEL: 'warn', SMTP_URL: 'smtp://127.0.0.1:1025', ...keys };
  const envOf = (service) => ({ ...shared, ...(service === 'gateway' ? {} : { DATABASE_SCHEMA: schemaOf(service) }), ...(service === 'notifications' ? { NOTIFICATIONS_ROLE: 'all' } : {}) });
  db = await ensureDatabase(databaseUrl);
  for (const service of SERVICES.filter((name) => name !== 'gateway')) {
    execFileSync(process.execPath, [resolve(root, 'dist/apps', service, 'main.js'), 'migrate'], { env: { ...process.env, ...envOf(service) }, stdio: ['ignore', 'ignore', 'inherit'] });
  }

  const rows = [];
  console.log(`B8: ${rounds} rounds; cold start = spawn → first 200 of /health/ready; memory = VmRSS after 200 requests; idle CPU over ${idleSeconds} s\n`);
  for (let round = 1; round <= rounds; round += 1) {
    const { child: baseline, startMs: baselineStart } = await startWarmBaseline();
    const baselineMemory = residentBytes(baseline.pid);
    await stop(baseline);

    const running = {};
    const services = {};
    for (const service of SERVICES) {
      const port = await freePort();
      const begin = performance.now();
      running[service] = startServicePinned(service, { ...envOf(service), PORT: String(port) }, profiling);
      await waitReady(`http://127.0.0.1:${port}/health/ready`);
      services[service] = { port, coldStartMs: performance.now() - begin };
    }
    for (const service of SERVICES) {
      await warmUp(services[service].port);
      services[service].memory = residentBytes(running[service].pid);
    }
    const { child: resting } = await startWarmBaseline();
    // Idle: settled, then CPU of every service process over the window.
    await new Promise((done) => setTimeout(done, settleSeconds * 1000));
    const before = Object.fromEntries(SERVICES.map((service) => [service, cpuMicros(running[service].pid)]));
    const windowStart = performance.now();
    await new Promise((done) => setTimeout(done, idleSeconds * 1000));
    const windowUs = (performance.now() - windowStart) * 1000;
    let idleUs = 0;
    for (const service of SERVICES) {
      const after = cpuMicros(running[service].pid);
      services[service].idleUs = after.user + after.system - before[service].user - before[service].system;
      idleUs += services[service].idleUs;
    }
    const idlePercent = (idleUs / windowUs) * 100;
    for (const service of SERVICES) services[service].restingMemory = residentBytes(running[service].pid);
    const baselineRestingMemory = residentBytes(resting.pid);
    await Promise.all([...SERVICES.map((service) => stop(running[service])), stop(resting)]);
    rows.push({ round, baselineStart, baselineMemory, baselineRestingMemory, services, idlePercent, windowUs });
    console.log(
      `round ${round}: raw Fastify ${baselineStart.toFixed(0)} ms, ${(baselineMemory / 2 ** 20).toFixed(0)} MB; ${SERVICES.map((service) => `${service} ${services[service].coldStartMs.toFixed(0)} ms (${(services[service].coldStartMs / baselineStart).toFixed(2)}×), ${(services[service].memory / 2 ** 20).toFixed(0)} MB (${(services[service].memory / baselineMemory).toFixed(2)}×)`).join('; ')}; idle CPU ${idlePercent.toFixed(2)} % of a core`,
    );
  }

  const perService = Object.fromEntries(
    SERVICES.map((service) => [
      service,
      {
        coldStart: figureOf(rows.map((row) => row.services[service].coldStartMs / row.baselineStart)),
        memory: figureOf(rows.map((row) => row.services[service].memory / row.baselineMemory)),
        memoryMb: figureOf(rows.map((row) => row.services[service].memory / 2 ** 20)),
        restingMemory: figureOf(rows.map((row) => row.services[service].restingMemory / row.baselineRestingMemory)),
        restingMemoryMb: figureOf(rows.map((row) => row.services[service].restingMemory / 2 ** 20)),
        idle: figureOf(rows.map((row) => (row.services[service].idleUs / row.windowUs) * 100)),
      },
    ]),
  );
  const worst = (key) => SERVICES.reduce((a, b) => (perService[a][key].median >= perService[b][key].median ? a : b));
  const slowest = worst('coldStart');
  const largest = worst('memory');
  const idle = figureOf(rows.map((row) => row.idlePercent));
  const pass = { coldStart: perService[slowest].coldStart.median <= GOALS.coldStart, memory: perService[largest].memory.median <= GOALS.memory, idle: idle.median < GOALS.idleCpuPercent };
  const labels = {
    coldStart: `B8 cold start to first 200 (slowest: ${slowest}, vs raw Fastify)`,
    memory: `B8 memory per service (largest: ${largest}, vs raw Fastify)`,
    idle: 'B8 idle CPU of the whole stack (% of a core)',
  };
  const values = { coldStart: formatRatio(perService[slowest].coldStart), memory: formatRatio(perService[largest].memory), idle: `${idle.median.toFixed(2)} % (${idle.min.toFixed(2)}–${idle.max.toFixed(2)})` };
  const goalText = { coldStart: `≤ ${GOALS.coldStart}×`, memory: `≤ ${GOALS.memory}×`, idle: `< ${GOALS.idleCpuPercent} %` };
  const largestAtRest = worst('restingMemory');
  const baselineRestingMb = figureOf(rows.map((row) => row.baselineRestingMemory / 2 ** 20)).median.toFixed(0);
  const atRest = `memory at rest (not a goal): largest ${largestAtRest} ${formatRatio(perService[largestAtRest].restingMemory)} (${perService[largestAtRest].restingMemoryMb.median.toFixed(0)} MB against raw Fastify's ${baselineRestingMb} MB at rest)`;
  console.log('');
  for (const key of Object.keys(labels)) console.log(`${labels[key]} = ${values[key]}; goal ${goalText[key]}: ${smoke ? 'smoke run, not judged' : pass[key] ? 'PASS' : 'MISS'}`);
  console.log(`B8 ${atRest}`);
  writeSection(
    'b8',
    [
      '## B8: footprint of the whole stack (latest run)',
      '',
      ...Object.keys(labels).map((key) => `- **${labels[key]} = ${values[key]}**, goal ${goalText[key]}: **${pass[key] ? 'pass' : 'miss'}**`),
      `- B8 ${atRest}`,
      '',
      '| service | cold start vs raw Fastify | memory vs raw Fastify | memory MB | at rest vs raw Fastify | at rest MB | idle CPU % of a core |',
      '|---|---|---|---|---|---|---|',
      ...SERVICES.map(
        (service) =>
          `| ${service} | ${formatRatio(perService[service].coldStart)} | ${formatRatio(perService[service].memory)} | ${perService[service].memoryMb.median.toFixed(0)} | ${formatRatio(perService[service].restingMemory)} | ${perService[service].restingMemoryMb.median.toFixed(0)} | ${perService[service].idle.median.toFixed(2)} |`,
      ),
      `| raw Fastify + pg (baseline) | ${figureOf(rows.map((row) => row.baselineStart)).median.toFixed(0)} ms | | ${figureOf(rows.map((row) => row.baselineMemory / 2 ** 20)).median.toFixed(0)} | | ${baselineRestingMb} | |`,
      '',
      `- Command: \`npm run bench -- b8 --rounds ${rounds} --idle-seconds ${idleSeconds} --settle-seconds ${settleSeconds}\` (after \`npm run build\`). Services started one at a time on core 0 (notifications with both roles), each against a private nats-server, the machine's PostgreSQL and Redis; cold start = spawn to the first 200 of \`/health/ready\`; memory = VmRSS after 200 requests; idle = utime+stime of every service over the window, ${settleSeconds} s after the warm-up (before then V8's memory reducer and start-up timers still run); at rest = VmRSS at the end of that window, against a second raw Fastify started and warmed up after the services.`,
      machineLine(),
      `- Date: ${new Date().toISOString()}`,
    ].join('\n'),
    Object.keys(labels).map((key) => summaryRow(labels[key], values[key], goalText[key], pass[key])),
  );
} finally {
  await stopAll();
  if (db) {
    for (const service of SERVICES.filter((name) => name !== 'gateway')) await db.query(`DROP SCHEMA IF EXISTS "${schemaOf(service)}" CASCADE`);
    await db.end();
  }
  rmSync(work, { recursive: true, force: true });
}
