#!/usr/bin/env node
// B1 (issue 6): CPU per tag scan, GET /api/v1/items/{code}, summed over every process that serves it (gateway,
// items, a private nats-server, the PostgreSQL backends of items), against bare Fastify + pg running the same
// prepared query on the same 100,000-row table. Servers on core 0, load on core 1, alternating rounds; the
// ratio of each product round to the baseline round before it. Prints a table and rewrites B1's section of
// docs/benchmarks.md. Usage: npm run bench -- b1 [--rounds 3 --requests 10000 --connections 10]
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { benchKeys } from './bench-env.mjs';

const root = resolve(import.meta.dirname, '../..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const rounds = Number(option('rounds', '3'));
const requests = Number(option('requests', '10000'));
const connections = Number(option('connections', '10'));
// --cpu-prof DIR: gateway and items write V8 CPU profiles there when they stop (see profile-summary.mjs).
const profileDir = option('cpu-prof', undefined);
const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
const GOAL = 2.0;
const ROWS = 100_000;
const SERVER_CORE = '0';
const LOAD_CORE = '1';
const CLOCK_TICK_US = 1_000_000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

const namespace = `bench_${randomBytes(3).toString('hex')}`;
const schema = `items_${namespace}`;
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test';
const work = mkdtempSync(join(tmpdir(), 'homing-b1-'));
const children = [];

const freePort = () =>
  new Promise((done) => {
    import('node:net').then(({ createServer }) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address();
        server.close(() => done(port));
      });
    });
  });

/** Starts a server process on the server core; its stdout is discarded, as a log collector would take it away. */
function startPinned(command, commandArgs, env, stderr = 'inherit') {
  const child = spawn('taskset', ['-c', SERVER_CORE, command, ...commandArgs], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', stderr] });
  children.push(child);
  return child;
}

async function waitReady(url) {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never answered 200`);
}

function runItems(command, env) {
  execFileSync(process.execPath, [resolve(root, 'dist/apps/items/main.js'), ...command], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** utime and stime of a process (all its threads), in microseconds, from its own accounting. */
function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * CLOCK_TICK_US, system: Number(fields[12]) * CLOCK_TICK_US };
}

/** PostgreSQL backends serving a client process: its sockets to the server, matched by client port. */
async function backendsOf(db, clientPid) {
  const ports = execFileSync('ss', ['-tnpH', 'state', 'established', '( dport = :5432 )'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(`pid=${clientPid},`))
    .map((line) => Number(line.trim().split(/\s+/)[2].split(':').pop()));
  const { rows } = await db.query('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [ports]);
  return rows.map((row) => row.pid);
}

function load(port, codesFile, amount) {
  const out = execFileSync('taskset', ['-c', LOAD_CORE, process.execPath, resolve(import.meta.dirname, 'load.mjs'), `http://127.0.0.1:${port}`, codesFile, String(amount), String(connections)], {
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop());
}

/** One round: warm up, pin the database backends too, then CPU per request over a fixed number of scans. */
async function measure(db, target, codesFile) {
  load(target.port, codesFile, Math.max(1000, requests / 5));
  const processes = Object.entries(target.pids).map(([name, pid]) => ({ name, pid }));
  for (const client of target.databaseClients) processes.push(...(await backendsOf(db, client)).map((pid) => ({ name: 'postgres', pid })));
  for (const { pid } of processes) execFileSync('taskset', ['-cp', SERVER_CORE, String(pid)], { stdio: 'ignore' });
  const before = processes.map(({ pid }) => cpuMicros(pid));
  const result = load(target.port, codesFile, requests);
  if (result.errors || result.non2xx) throw new Error(`${target.name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  const perProcess = {};
  const kernel = {};
  processes.forEach(({ name, pid }, index) => {
    const after = cpuMicros(pid);
    perProcess[name] = (perProcess[name] ?? 0) + (after.user + after.system - before[index].user - before[index].system) / result.requests;
    kernel[name] = (kernel[name] ?? 0) + (after.system - before[index].system) / result.requests;
  });
  const microsPerRequest = Object.values(perProcess).reduce((a, b) => a + b, 0);
  return { microsPerRequest, perProcess, kernel, rps: result.rps };
}

async function seed(db) {
  // Crockford base32, 16 characters: the shape of a minted code; half the tags claimed, with a name.
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const codes = Array.from({ length: ROWS }, () => Array.from(randomBytes(16), (byte) => alphabet[byte & 31]).join(''));
  for (let start = 0; start < ROWS; start += 10_000) {
    const batch = codes.slice(start, start + 10_000);
    await db.query(
      `INSERT INTO "${schema}".items (code, name, owner_user_id, claimed_at)
       SELECT code, CASE WHEN n % 2 = 0 THEN 'Item ' || n END, CASE WHEN n % 2 = 0 THEN gen_random_uuid() END, CASE WHEN n % 2 = 0 THEN now() END
       FROM unnest($1::char(16)[]) WITH ORDINALITY AS t(code, n)`,
      [batch],
    );
  }
  await db.query(`ANALYZE "${schema}".items`);
  return codes;
}

async function ensureDatabase() {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.href });
  await admin.connect();
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (!rowCount) await admin.query(`CREATE DATABASE "${name}"`).catch(() => undefined);
  await admin.end();
}

// Per process: µs of CPU per request, and how much of it the kernel spent (system time: sockets, scheduling).
const breakdown = ({ perProcess, kernel }) =>
  Object.entries(perProcess)
    .map(([name, micros]) => `${name} ${micros.toFixed(0)} (kernel ${kernel[name].toFixed(0)})`)
    .join(', ');

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function writeReport(report) {
  const file = resolve(root, 'docs/benchmarks.md');
  const start = '<!-- b1:start (written by npm run bench -- b1) -->';
  const end = '<!-- b1:end -->';
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = `# Benchmarks\n\n${start}\n${end}\n`;
  }
  if (!text.includes(start)) text += `\n${start}\n${end}\n`;
  writeFileSync(file, text.slice(0, text.indexOf(start) + start.length) + `\n${report}\n` + text.slice(text.indexOf(end)));
}

let db;
try {
  const natsPort = await freePort();
  const nats = startPinned('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(work, 'jetstream')], {}, 'ignore');
  const productEnv = {
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: schema,
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    NATS_NAMESPACE: namespace,
    NODE_ENV: 'production',
    ...benchKeys(),
  };
  await ensureDatabase();
  runItems(['migrate'], productEnv);
  db = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-b1-control' });
  await db.connect();
  const codes = await seed(db);
  const codesFile = join(work, 'codes.txt');
  writeFileSync(codesFile, codes.join('\n'));

  const [itemsPort, gatewayPort, baselinePort] = [await freePort(), await freePort(), await freePort()];
  const items = startPinned(process.execPath, [...profiling, resolve(root, 'dist/apps/items/main.js')], { ...productEnv, PORT: String(itemsPort) });
  const gateway = startPinned(process.execPath, [...profiling, resolve(root, 'dist/apps/gateway/main.js')], { ...productEnv, PORT: String(gatewayPort) });
  const baseline = startPinned(process.execPath, [resolve(import.meta.dirname, 'baseline-server.mjs')], {
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: schema,
    PORT: String(baselinePort),
  });
  await Promise.all([itemsPort, gatewayPort, baselinePort].map((port) => waitReady(`http://127.0.0.1:${port}/health/ready`)));

  const targets = {
    baseline: { name: 'baseline', port: baselinePort, pids: { fastify: baseline.pid }, databaseClients: [baseline.pid] },
    product: { name: 'product', port: gatewayPort, pids: { gateway: gateway.pid, items: items.pid, nats: nats.pid }, databaseClients: [items.pid] },
  };
  // taskset execs the command, so a child's pid is the server's own.
  console.log(`B1: ${requests} scans per round over ${ROWS} rows, ${connections} connections, servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}\n`);
  console.log('round   baseline µs/req (req/s)   product µs/req (req/s)   ratio   product µs/req by process');
  const rows = [];
  for (let round = 1; round <= rounds; round += 1) {
    const base = await measure(db, targets.baseline, codesFile);
    const product = await measure(db, targets.product, codesFile);
    const ratio = product.microsPerRequest / base.microsPerRequest;
    rows.push({ round, base, product, ratio });
    console.log(
      `${String(round).padStart(5)}   ${base.microsPerRequest.toFixed(0).padStart(7)} (${base.rps.toFixed(0).padStart(6)})          ${product.microsPerRequest.toFixed(0).padStart(7)} (${product.rps.toFixed(0).padStart(6)})         ${ratio.toFixed(2)}×   ${breakdown(product)}`,
    );
  }
  const ratios = rows.map((row) => row.ratio);
  const figure = median(ratios);
  const pass = figure <= GOAL;
  console.log(`\nB1 = ${figure.toFixed(2)}× (min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}); goal ≤ ${GOAL.toFixed(1)}×: ${pass ? 'PASS' : 'FAIL'}`);

  const { rows: pgVersion } = await db.query('SHOW server_version');
  const natsVersion = execFileSync('nats-server', ['--version'], { encoding: 'utf8' }).trim();
  const table = rows.map(
    ({ round, base, product, ratio }) =>
      `| ${round} | ${base.microsPerRequest.toFixed(0)} | ${base.rps.toFixed(0)} | ${product.microsPerRequest.toFixed(0)} | ${product.rps.toFixed(0)} | ${ratio.toFixed(2)}× | ${breakdown(product)} |`,
  );
  if (!profileDir) writeReport(
    [
      '## B1: CPU per tag scan, product against bare Fastify + pg (latest run)',
      '',
      `**B1 = ${figure.toFixed(2)}×** (median of ${rounds} rounds, min ${Math.min(...ratios).toFixed(2)}×, max ${Math.max(...ratios).toFixed(2)}×). Goal ≤ ${GOAL.toFixed(1)}×: **${pass ? 'pass' : 'fail'}**.`,
      '',
      '| round | baseline µs CPU/req | baseline req/s | product µs CPU/req | product req/s | ratio | product µs/req by process |',
      '|---|---|---|---|---|---|---|',
      ...table,
      '',
      `- Command: \`npm run bench -- b1 --rounds ${rounds} --requests ${requests} --connections ${connections}\` (after \`npm run build\`)`,
      '- CPU: utime+stime from /proc/<pid>/stat of gateway, items, a private nats-server and the PostgreSQL backends of items (product), or of the bare server and its backends (baseline); servers pinned to core 0, autocannon to core 1.',
      // The machine is shared: a busy one makes the four product processes on one core cost more than the one baseline.
      `- Machine: ${cpus().length} CPUs, ${cpus()[0].model.trim()}, load average ${loadavg()[0].toFixed(1)} at the end; Node ${process.version}; ${natsVersion}; PostgreSQL ${pgVersion[0].server_version}`,
      `- Date: ${new Date().toISOString()}`,
    ].join('\n'),
  );
} finally {
  // Waits for the servers to stop: a CPU profile is written as a process exits.
  await Promise.all(
    children.map((child) => (child.exitCode !== null ? undefined : new Promise((done) => (child.once('exit', done), setTimeout(done, 15_000).unref(), child.kill('SIGTERM'))))),
  );
  if (db) {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  }
  rmSync(work, { recursive: true, force: true });
}
