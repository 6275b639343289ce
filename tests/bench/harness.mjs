// What every CPU-ratio benchmark shares: servers pinned to one core and the load generator to the other, CPU read
// from the processes' own accounting (/proc/<pid>/stat), medians of same-run ratios, and its section of
// docs/benchmarks.md.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { nodeOptionsEnv } from '../../deploy/dev/node-options.mjs';

export const root = resolve(import.meta.dirname, '../..');
export const SERVER_CORE = '0';
export const LOAD_CORE = '1';
const CLOCK_TICK_US = 1_000_000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

const args = process.argv.slice(2);
/** `--name value` from the command line, or the fallback. */
export const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
/** `--smoke`: a few seconds of each measurement, no goals, nothing written (npm test's bench-smoke tier). */
export const smoke = args.includes('--smoke');

// Ports below the kernel's ephemeral range (32768–60999 here) and below the test workers' slices (20000–31999, see
// libs/testing/src/service-process.ts): a port from `listen(0)` is free again the moment it is closed, and the next
// outgoing connection (a service's to NATS, Redis or PostgreSQL) may take it before the server it was meant for binds.
const BENCH_PORTS_FROM = 12_000;
const BENCH_PORTS = 8_000;
const handedOut = new Set();

const canListen = (port) =>
  new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '0.0.0.0', () => server.close(() => done(true)));
  });

/** A free TCP port, never one this run handed out before. */
export async function freePort() {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const port = BENCH_PORTS_FROM + Math.floor(Math.random() * BENCH_PORTS);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${BENCH_PORTS_FROM}–${BENCH_PORTS_FROM + BENCH_PORTS - 1}`);
}

const children = [];

// Linux's autogroup (kernel.sched_autogroup_enabled) schedules each session as one group: PostgreSQL's backends, forked
// by a postmaster of another session, then share core 0 as a group of their own against the servers started here.
// Measured on 2026-11-29 (an AMD EPYC machine, kernel 6.18): the scan's lookup took up to 3.4 s in PostgreSQL with no
// lock wait, its backends runnable on core 0 (state R) and waiting on its run queue for 0.1–0.5 s between 20 ms samples
// of /proc/<pid>/schedstat; scans answered 504 after the 2 s RPC timeout, and B1's rounds read 1.7–5.2×. With autogroup
// off: no statement over 150 ms in four runs, rounds of 1.5–2.6×. So the benchmarks schedule every process as a peer,
// as the method assumes: autogroup is switched off before a benchmark starts its first server and restored when it
// exits. The setting decides the group of a process when it is forked, so it must be off before the servers and the
// backends they open exist; that is why it is switched in startPinned. Without the right to switch it, the run says so.
const AUTOGROUP = '/proc/sys/kernel/sched_autogroup_enabled';
const autogroupSetting = () => (existsSync(AUTOGROUP) ? readFileSync(AUTOGROUP, 'utf8').trim() : null);
/** 'unchecked', 'none' (no autogroup, or already off), 'off' (switched off here), 'kept' (on: not ours to change), 'restored'. */
let autogroup = 'unchecked';

function schedulePeers() {
  if (autogroup !== 'unchecked') return;
  if (autogroupSetting() !== '1') {
    autogroup = 'none';
    return;
  }
  try {
    writeFileSync(AUTOGROUP, '0');
  } catch {
    autogroup = 'kept';
    console.warn(`warning: ${AUTOGROUP} is 1 and cannot be changed here: PostgreSQL's backends are scheduled as a group apart from the servers on core ${SERVER_CORE}, so figures swing more and a request may time out`);
    return;
  }
  autogroup = 'off';
  const restore = () => {
    if (autogroup !== 'off') return;
    writeFileSync(AUTOGROUP, '1');
    autogroup = 'restored';
  };
  process.once('exit', restore);
  // Restored, then the signal raised again: with the listener gone, it ends the process as it would have (status and
  // all). A signal arriving while the benchmark waits in a synchronous call (a load run) is handled when that returns.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => (restore(), process.kill(process.pid, signal)));
}

/** How this run was scheduled, for the machine line: empty where autogroup played no part. */
function schedulingNote() {
  if (autogroup === 'kept') return '; **autogroup on** (could not be switched off: figures less reliable)';
  if (autogroup === 'off') return autogroupSetting() === '0' ? '; autogroup off for the run' : '; **autogroup switched on again during the run** (by another run?): figures less reliable';
  if (autogroup === 'none' && autogroupSetting() === '0') return '; autogroup off';
  return '';
}

/** Starts a server process on the server core; its stdout is discarded, as a log collector would take it away. */
export function startPinned(command, commandArgs, env, stderr = 'inherit') {
  schedulePeers();
  // taskset execs the command, so the child's pid is the server's own.
  const child = spawn('taskset', ['-c', SERVER_CORE, command, ...commandArgs], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', stderr] });
  children.push(child);
  return child;
}

/**
 * Starts a built service (`dist/apps/<app>/main.js`) on the server core, with the Node options it runs with in
 * production (its `node-options`, before any NODE_OPTIONS of the bench's environment) and `nodeArgs` before the script.
 */
export function startServicePinned(app, env, nodeArgs = [], stderr = 'inherit') {
  return startPinned(process.execPath, [...nodeArgs, resolve(root, 'dist/apps', app, 'main.js')], { ...env, ...nodeOptionsEnv(app) }, stderr);
}

/** Stops every process started here and waits for them (a CPU profile is written as a process exits). */
export function stopAll() {
  return Promise.all(
    children.map((child) => (child.exitCode !== null ? undefined : new Promise((done) => (child.once('exit', done), setTimeout(done, 15_000).unref(), child.kill('SIGTERM'))))),
  );
}

/** Milliseconds until `url` first answers 200 (polled every 20 ms). */
export async function waitReady(url, attempts = 750) {
  const started = performance.now();
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (await fetch(url).then((r) => r.ok, () => false)) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${url} never answered 200`);
}

/** utime and stime of a process (all its threads), in microseconds, from its own accounting. */
export function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * CLOCK_TICK_US, system: Number(fields[12]) * CLOCK_TICK_US };
}

// A process gone meanwhile (a database backend its pool closed while idle) did no work worth counting.
export function cpuOr(pid, fallback) {
  try {
    return cpuMicros(pid);
  } catch {
    return fallback;
  }
}

/**
 * Voluntary context switches of a process, over all its threads: each is a wait (for a socket, a lock, a timer), so each
 * is a wake-up after it. A thread gone meanwhile counts nothing.
 */
export function wakeUps(pid) {
  let total = 0;
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const task of tasks) {
    try {
      total += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // The thread ended since the listing.
    }
  }
  return total;
}

/** Resident memory of a process in bytes, from /proc/<pid>/status. */
export function residentBytes(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) * 1024;
}

/** PostgreSQL backends serving a client process: its sockets to the server, matched by client port. */
export async function backendsOf(db, clientPid) {
  const ports = execFileSync('ss', ['-tnpH', 'state', 'established', '( dport = :5432 )'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(`pid=${clientPid},`))
    .map((line) => Number(line.trim().split(/\s+/)[2].split(':').pop()));
  const { rows } = await db.query('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [ports]);
  return rows.map((row) => row.pid);
}

/** Runs load.mjs on the load core: `requests` GETs of `<url><path>` where `{code}` in the path takes codes from a file. */
export function loadPinned({ url, path, codesFile = '-', requests, connections = 10, spreadAddresses = false }) {
  const out = execFileSync('taskset', ['-c', LOAD_CORE, process.execPath, resolve(import.meta.dirname, 'load.mjs'), url, codesFile, String(requests), String(connections), path], {
    encoding: 'utf8',
    env: { ...process.env, LOAD_SPREAD_ADDRESSES: spreadAddresses ? '1' : '0' },
  });
  return JSON.parse(out.trim().split('\n').pop());
}

/**
 * One measurement: a warm-up, then CPU per request summed over `processes` ({name, pid}, or a function giving them
 * after the warm-up) while `requests` are sent.
 * Refuses errors and non-2xx answers.
 */
export async function measureCpu({ name, processes: listed, send, requests, warmUp = Math.max(500, requests / 5) }) {
  send(warmUp);
  // After the warm-up: database pools open (and close idle) backends as they please.
  // A backend closed by its pool since it was listed is left out.
  const processes = (typeof listed === 'function' ? await listed() : listed).filter(({ pid }) => existsSync(`/proc/${pid}/stat`));
  for (const { pid } of processes) execFileSync('taskset', ['-cp', SERVER_CORE, String(pid)], { stdio: 'ignore' });
  const before = processes.map(({ pid }) => cpuOr(pid, { user: 0, system: 0 }));
  const result = send(requests);
  if (result.errors || result.non2xx) throw new Error(`${name}: ${result.errors} errors, ${result.non2xx} non-2xx answers (by status: ${JSON.stringify(result.statuses)})`);
  const perProcess = {};
  const kernel = {};
  processes.forEach(({ name: processName, pid }, index) => {
    const after = cpuOr(pid, before[index]);
    perProcess[processName] = (perProcess[processName] ?? 0) + (after.user + after.system - before[index].user - before[index].system) / result.requests;
    kernel[processName] = (kernel[processName] ?? 0) + (after.system - before[index].system) / result.requests;
  });
  const microsPerRequest = Object.values(perProcess).reduce((a, b) => a + b, 0);
  return { microsPerRequest, perProcess, kernel, rps: result.rps, p50: result.p50, p99: result.p99 };
}

/** Per process: µs of CPU per request, and how much of it the kernel spent (system time: sockets, scheduling). */
export const breakdown = ({ perProcess, kernel }) =>
  Object.entries(perProcess)
    .map(([name, micros]) => `${name} ${micros.toFixed(0)} (kernel ${kernel[name].toFixed(0)})`)
    .join(', ');

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A ratio figure: median, min and max of the rounds' ratios. */
export function figureOf(ratios) {
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

export const formatRatio = ({ median: m, min, max }) => `${m.toFixed(2)}× (${min.toFixed(2)}–${max.toFixed(2)})`;

/** The machine and versions line of every section. */
export function machineLine(extra = '') {
  return `- Machine: ${cpus().length} CPUs, ${cpus()[0].model.trim()}, load average ${loadavg()[0].toFixed(1)} at the end; Node ${process.version}${extra}${schedulingNote()}`;
}

/**
 * Replaces the section `name` of docs/benchmarks.md (between its markers) with `markdown`, and its row in the
 * summary table at the top. Nothing is written in a smoke run.
 */
export function writeSection(name, markdown, summaryRows = []) {
  if (smoke) return;
  const file = resolve(root, 'docs/benchmarks.md');
  const start = `<!-- ${name}:start (written by npm run bench -- ${name}) -->`;
  const end = `<!-- ${name}:end -->`;
  let text = readFileSync(file, 'utf8');
  if (!text.includes(start)) text += `\n${start}\n${end}\n`;
  text = text.slice(0, text.indexOf(start) + start.length) + `\n${markdown}\n` + text.slice(text.indexOf(end));
  // The summary: one line per figure, each marked with its benchmark so a rerun replaces only its own.
  const summaryStart = '<!-- summary:start -->';
  const summaryEnd = '<!-- summary:end -->';
  if (text.includes(summaryStart) && summaryRows.length) {
    const inner = text.slice(text.indexOf(summaryStart) + summaryStart.length, text.indexOf(summaryEnd));
    const lines = inner
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('|') && !line.includes(`<!-- ${name} -->`));
    const header = lines.slice(0, 2);
    const rows = [...lines.slice(2), ...summaryRows.map((row) => `${row} <!-- ${name} -->`)].sort();
    text = text.slice(0, text.indexOf(summaryStart) + summaryStart.length) + `\n${[...header, ...rows].join('\n')}\n` + text.slice(text.indexOf(summaryEnd));
  }
  writeFileSync(file, text);
}

/** A summary row: | figure | value | goal | pass/miss | date | */
export function summaryRow(figure, value, goal, pass) {
  return `| ${figure} | ${value} | ${goal} | ${pass ? 'pass' : '**miss**'} | ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC |`;
}

/** Creates the database if missing; returns a connected control client. */
export async function ensureDatabase(databaseUrl) {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.href });
  await admin.connect();
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (!rowCount) await admin.query(`CREATE DATABASE "${name}"`).catch(() => undefined);
  await admin.end();
  const db = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-control' });
  await db.connect();
  return db;
}

/** A command of the built items service (`migrate`), with the benchmark's environment. */
export function runItems(command, env) {
  execFileSync(process.execPath, [resolve(root, 'dist/apps/items/main.js'), ...command], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** `rows` tags in items' table of `schema` (Crockford base32, 16 characters; half claimed, with a name); their codes. */
export async function seedItems(db, schema, rows) {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const codes = Array.from({ length: rows }, () => Array.from(randomBytes(16), (byte) => alphabet[byte & 31]).join(''));
  for (let start = 0; start < rows; start += 10_000) {
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

/**
 * Seeds `rows` tags (seedItems) and writes the files the load generator reads codes from: every code, and the first
 * `hotTags` (the codes a cache would keep).
 */
export async function seedCodeFiles(db, schema, { rows, hotTags, work }) {
  const codes = await seedItems(db, schema, rows);
  const codesFile = join(work, 'codes.txt');
  writeFileSync(codesFile, codes.join('\n'));
  const hotFile = join(work, 'hot-codes.txt');
  writeFileSync(hotFile, codes.slice(0, hotTags).join('\n'));
  return { codes, codesFile, hotFile };
}
