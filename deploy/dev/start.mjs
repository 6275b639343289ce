#!/usr/bin/env node
// `npm start`: the whole of Homing on one development machine (ARCHITECTURE §10, §11).
//
//   check PostgreSQL, NATS and Redis → build → create the database → development keys → migrate each service
//   → mint a few tags → start MailDev and every service → wait until all are ready → print where everything is.
//
// `--check` runs only the first step (exit 0 or 1); `--no-build` reuses dist/ as it is.
// Ports: GATEWAY_PORT (8080), IDENTITY_PORT, ITEMS_PORT, MESSAGING_PORT, NOTIFICATIONS_PORT, MAIL_RELAY_PORT
// (3001–3005), RELAY_SMTP_PORT (2526: the mail relay's SMTP), MAILDEV_SMTP_PORT (1025), MAILDEV_WEB_PORT (1080). Development keys and minted tags: HOMING_DATA_DIR (.data/).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseName, ensureDatabase } from './database.mjs';
import { devKeyEnv } from './dev-keys.mjs';
import { nodeOptionsEnv } from './node-options.mjs';
import { formatPreflight, maskUrl, runPreflight } from './preflight.mjs';
import { ProcessGroup, busyPorts, paint, useColor } from './processes.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Development keys and the minted tags; HOMING_DATA_DIR puts them elsewhere (a test's stack keeps its own).
const DATA_DIR = process.env.HOMING_DATA_DIR || join(ROOT, '.data');
const SEEDED_TAGS_FILE = join(DATA_DIR, 'seeded-tags.txt');
const WEB_DIST = join(ROOT, 'dist/apps/web');

/**
 * A port from `<variable>` when set, else the usual one: a second stack on the machine (the tests of `npm start`)
 * must not take the ports of the developer's own.
 */
function portFromEnv(variable, fallback) {
  const value = process.env[variable];
  if (!value) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`${variable}=${value} is not a port (1–65535).`);
    process.exit(2);
  }
  return port;
}

const GATEWAY_PORT = portFromEnv('GATEWAY_PORT', 8080);

const DEFAULTS = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/homing',
  NATS_URL: 'nats://127.0.0.1:4222',
  REDIS_URL: 'redis://127.0.0.1:6379',
  PUBLIC_URL: `http://localhost:${GATEWAY_PORT}`,
};

// The mail relay takes mail for tag-{code}@RELAY_DOMAIN and the reply addresses of the product's e-mails.
const RELAY = { smtpPort: portFromEnv('RELAY_SMTP_PORT', 2526), domain: process.env.RELAY_DOMAIN || 'relay.localhost' };

const MAILDEV = { smtpPort: portFromEnv('MAILDEV_SMTP_PORT', 1025), webPort: portFromEnv('MAILDEV_WEB_PORT', 1080) };

// The gateway last: it only forwards to the others, so it is the last piece to be useful.
const SERVICES = [
  { name: 'identity', port: portFromEnv('IDENTITY_PORT', 3001), migrates: true },
  { name: 'items', port: portFromEnv('ITEMS_PORT', 3002), migrates: true },
  { name: 'messaging', port: portFromEnv('MESSAGING_PORT', 3003), migrates: true },
  // One process runs both roles here; in production consumers and workers scale apart (ARCHITECTURE §1).
  { name: 'notifications', port: portFromEnv('NOTIFICATIONS_PORT', 3004), migrates: true, env: { NOTIFICATIONS_ROLE: 'all' } },
  // Mail to it comes from this machine, from made-up domains with no DNS: the sender check (SPF, DKIM, DMARC) is off.
  { name: 'mail-relay', port: portFromEnv('MAIL_RELAY_PORT', 3005), env: { RELAY_SMTP_PORT: String(RELAY.smtpPort), RELAY_DOMAIN: RELAY.domain, RELAY_SENDER_AUTHENTICATION: 'off' } },
  { name: 'gateway', port: GATEWAY_PORT, env: { WEB_DIST } },
];

const SEED_COUNT = 5;
const TAG_CODE = /^[0-9A-Z]{4}(?:-[0-9A-Z]{4}){3}$/;
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

const USAGE = `Usage: npm start [-- --check | --no-build]   (or: node deploy/dev/start.mjs [--check | --no-build])
  --check      only check that PostgreSQL, NATS (with JetStream) and Redis answer; exit 0 or 1
  --no-build   start from dist/ as it is, without building first`;

const group = new ProcessGroup(['start', 'build', 'maildev', ...SERVICES.map((service) => service.name)]);
let stopping = false;

const say = (line) => group.log('start', line);

// ---------------------------------------------------------------------------------------------------------------
// Configuration

function parseArgs(argv) {
  const options = { check: false, build: true };
  for (const arg of argv) {
    if (arg === '--check') options.check = true;
    else if (arg === '--no-build') options.build = false;
    else if (arg === '--help' || arg === '-h') options.help = true;
    else throw new UsageError(`unknown option ${arg}`);
  }
  return options;
}

class UsageError extends Error {}

/** The environment the services share; what the developer exported wins over the defaults. */
function readConfig(env) {
  return {
    databaseUrl: env.DATABASE_URL || DEFAULTS.DATABASE_URL,
    natsUrl: env.NATS_URL || DEFAULTS.NATS_URL,
    redisUrl: env.REDIS_URL || DEFAULTS.REDIS_URL,
    publicUrl: (env.PUBLIC_URL || DEFAULTS.PUBLIC_URL).replace(/\/+$/, ''),
    // No SMTP_URL: MailDev catches every e-mail and shows it on a web page.
    smtpUrl: env.SMTP_URL || undefined,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Steps

async function preflight(config) {
  say('Checking PostgreSQL, NATS and Redis…');
  const results = await runPreflight({ postgres: config.databaseUrl, nats: config.natsUrl, redis: config.redisUrl });
  const failed = results.filter((result) => !result.ok);
  const report = formatPreflight(results);
  if (failed.length === 0) {
    console.log(report);
    return true;
  }
  console.error(report);
  console.error(`\nHoming needs PostgreSQL, NATS with JetStream and Redis; ${listOf(failed.map((result) => result.name))} failed the check above.`);
  return false;
}

function listOf(names) {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
}

/** Fail now, not after a minute of building, when something already holds a port a service needs. */
async function checkPortsFree(config) {
  const wanted = [...SERVICES.map(({ name, port }) => ({ name, port })), { name: 'mail relay SMTP', port: RELAY.smtpPort }];
  if (!config.smtpUrl) wanted.push({ name: 'MailDev SMTP', port: MAILDEV.smtpPort }, { name: 'MailDev web', port: MAILDEV.webPort });
  const busy = new Set(await busyPorts(wanted.map(({ port }) => port)));
  if (busy.size === 0) return;
  const list = wanted.filter(({ port }) => busy.has(port)).map(({ name, port }) => `${port} (${name})`);
  throw new StartError(`Port ${list.join(', ')} already in use. Is Homing already running (npm start in another terminal)? Stop it, or free the port.`);
}

class StartError extends Error {}

async function build() {
  say('Building every app: npx nx run-many -t build --outputStyle=static');
  // nx prints its own progress; prefixing would only garble it.
  const { code, error } = await group.run('build', 'npx', ['nx', 'run-many', '-t', 'build', '--outputStyle=static'], { cwd: ROOT, inherit: true });
  if (error) throw new StartError(`Could not run the build: ${error.message}`);
  if (code !== 0) throw new StartError(`The build failed (exit code ${code}); see nx's output above.`);
}

function checkBundles(built) {
  const again = built ? 'The build did not produce it.' : 'Run npm start without --no-build.';
  for (const { name } of SERVICES) {
    const main = join(ROOT, 'dist/apps', name, 'main.js');
    if (!existsSync(main)) throw new StartError(`${main} is missing. ${again}`);
  }
  // The gateway refuses to start with a WEB_DIST that holds no index.html.
  if (!existsSync(join(WEB_DIST, 'index.html'))) throw new StartError(`${join(WEB_DIST, 'index.html')} is missing. ${again}`);
}

async function createDatabase(config) {
  try {
    if (await ensureDatabase(config.databaseUrl)) say(`Created database ${databaseName(config.databaseUrl)}.`);
  } catch (error) {
    throw new StartError(`Could not create the database at ${maskUrl(config.databaseUrl)}: ${error.message}`);
  }
}

function developmentKeys() {
  try {
    return devKeyEnv(DATA_DIR);
  } catch (error) {
    throw new StartError(`Development keys: ${error.message}`);
  }
}

function mainJs(app) {
  return join(ROOT, 'dist/apps', app, 'main.js');
}

/** The environment every service gets; `PORT` and `DATABASE_SCHEMA` are per service, so they are never shared. */
function sharedEnv(config, keyEnv) {
  const env = {
    NODE_ENV: 'development',
    LOG_PRETTY: 'true',
    ...process.env,
    ...keyEnv,
    DATABASE_URL: config.databaseUrl,
    NATS_URL: config.natsUrl,
    REDIS_URL: config.redisUrl,
    PUBLIC_URL: config.publicUrl,
    SMTP_URL: config.smtpUrl ?? `smtp://127.0.0.1:${MAILDEV.smtpPort}`,
  };
  // A DATABASE_SCHEMA left in the shell (tests use one) would put all four services in one schema.
  delete env.PORT;
  delete env.DATABASE_SCHEMA;
  // The children write to pipes, not the terminal; tell pino-pretty the terminal can show colour.
  if (useColor && !env.FORCE_COLOR) env.FORCE_COLOR = '1';
  return env;
}

/** Each service creates its own schema and runs its own migrations; one after the other, so failures read clearly. */
async function migrate(env) {
  for (const { name } of SERVICES.filter((service) => service.migrates)) {
    say(`Migrating ${name}…`);
    const { code, error } = await group.run(name, process.execPath, [mainJs(name), 'migrate'], { env, cwd: ROOT });
    if (stopping) return;
    if (code !== 0) throw new StartError(`Migrating ${name} failed (${error ? error.message : `exit code ${code}`}); see its output above. Nothing was started.`);
  }
}

/**
 * A few unclaimed tags to try, minted once and remembered in .data/ (delete the file to mint new ones).
 * Minting on every start would leave ever more unclaimed tags behind.
 */
async function seedTags(env) {
  if (existsSync(SEEDED_TAGS_FILE)) {
    const codes = readFileSync(SEEDED_TAGS_FILE, 'utf8').split('\n').map((line) => line.trim()).filter((line) => TAG_CODE.test(line));
    if (codes.length > 0) return codes;
  }
  say(`Minting ${SEED_COUNT} unclaimed tags…`);
  const { code, stdout } = await group.run('items', process.execPath, [mainJs('items'), 'seed-tags', '--count', String(SEED_COUNT)], { env, cwd: ROOT, capture: true });
  if (stopping) return [];
  if (code !== 0) throw new StartError(`Minting tags failed (exit code ${code}); see the items output above.`);
  // Only lines that look like codes: anything else on stdout (a log line) is not one.
  const codes = stdout.split('\n').map((line) => line.trim()).filter((line) => TAG_CODE.test(line));
  if (codes.length === 0) throw new StartError('items seed-tags printed no tag codes (expected lines like ABCD-EFGH-JKMN-PQRS).');
  const temporary = `${SEEDED_TAGS_FILE}.${process.pid}.tmp`;
  writeFileSync(temporary, `${codes.join('\n')}\n`);
  renameSync(temporary, SEEDED_TAGS_FILE);
  return codes;
}

function portAnswers(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => resolve(socket.destroy() || true));
    socket.once('error', () => resolve(false));
  });
}

/**
 * MailDev as a child like the services, not inside this process: its module registers SIGINT/SIGTERM handlers
 * that call process.exit(0), which would cut our own shutdown short, and it throws from an event handler when
 * a port is taken. As a child it is stopped, and watched, like everything else.
 */
async function startMailDev() {
  const bin = createRequire(import.meta.url).resolve('maildev/bin/maildev');
  // Loopback only: the catcher shows every e-mail, login codes and reset links included.
  const args = [bin, '--smtp', String(MAILDEV.smtpPort), '--web', String(MAILDEV.webPort), '--ip', '127.0.0.1'];
  group.spawn('maildev', process.execPath, args, { cwd: ROOT, env: process.env, onExit: exitedUnexpectedly('maildev') });
  const deadline = Date.now() + 10_000;
  while (!(await portAnswers(MAILDEV.smtpPort))) {
    if (stopping) return;
    if (Date.now() > deadline) throw new StartError(`MailDev did not open SMTP port ${MAILDEV.smtpPort} within 10 s.`);
    await sleep(200);
  }
}

function startServices(env) {
  for (const service of SERVICES) {
    const serviceEnv = { ...env, ...service.env, ...nodeOptionsEnv(service.name, env), PORT: String(service.port) };
    group.spawn(service.name, process.execPath, [mainJs(service.name)], { env: serviceEnv, cwd: ROOT, onExit: exitedUnexpectedly(service.name) });
  }
}

/** A long-running child ended without being asked to: the whole set is useless without it, so stop everything. */
function exitedUnexpectedly(name) {
  return (code, signal, error) => {
    // A terminal Ctrl+C reaches the children as well as us; give our own SIGINT handler the moment to say so first.
    setTimeout(() => {
      if (stopping) return;
      const how = error ? `could not start: ${error.message}` : signal ? `was killed by ${signal}` : `exited with code ${code}`;
      void shutdown(1, `${name} ${how}; stopping everything.`);
    }, 100);
  };
}

async function probeReady(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2_000) });
    const body = response.status === 200 ? '' : (await response.text()).slice(0, 300);
    return { ready: response.status === 200, detail: `HTTP ${response.status} ${body}`.trim() };
  } catch (error) {
    return { ready: false, detail: error.cause?.code ?? error.message };
  }
}

/** Polls every service's /health/ready until each answers 200; resolves with those that never did. */
async function waitUntilReady(timeoutMs) {
  const pending = new Map(SERVICES.map((service) => [service.name, { port: service.port, detail: 'no answer yet' }]));
  const deadline = Date.now() + timeoutMs;
  while (pending.size > 0 && Date.now() < deadline && !stopping) {
    await Promise.all(
      [...pending].map(async ([name, entry]) => {
        const { ready, detail } = await probeReady(entry.port);
        if (ready) pending.delete(name);
        else entry.detail = detail;
      }),
    );
    if (pending.size > 0) await sleep(500);
  }
  return [...pending].map(([name, { port, detail }]) => `${name} (http://127.0.0.1:${port}/health/ready: ${detail})`);
}

function box(lines) {
  const width = Math.max(...lines.map((line) => line.length));
  const edge = '─'.repeat(width + 2);
  return [`┌${edge}┐`, ...lines.map((line) => `│ ${line.padEnd(width)} │`), `└${edge}┘`].join('\n');
}

function summary(config, codes) {
  const column = (label, value) => `${label.padEnd(14)}${value}`;
  const lines = [
    'Homing is running',
    '',
    column('Web app', config.publicUrl),
    column('API', `${config.publicUrl}/api/v1`),
    column('OpenAPI', `${config.publicUrl}/api/docs`),
    column('Mail catcher', config.smtpUrl ? `none: using SMTP_URL ${maskUrl(config.smtpUrl)}` : `http://localhost:${MAILDEV.webPort}`),
    column('Mail relay', `smtp://localhost:${RELAY.smtpPort}: mail to tag-<code>@${RELAY.domain}, replies to the e-mails`),
    '',
    'Health',
    ...SERVICES.map(({ name, port }) => `  ${column(name, `http://localhost:${port}/health/ready`)}`),
    '',
    `Unclaimed tags (${SEEDED_TAGS_FILE.replace(ROOT, '')}; delete it to mint new ones)`,
    ...codes.map((code) => `  ${code}`),
    `  try: curl ${config.publicUrl}/api/v1/items/${codes[0]}`,
    `  or e-mail tag-${codes[0].replace(/-/g, '').toLowerCase()}@${RELAY.domain} through smtp://localhost:${RELAY.smtpPort}`,
    '',
    'Ctrl+C to stop',
  ];
  return paint(box(lines), 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Stopping

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** SIGTERM to every service, SIGKILL to those still running after 15 s, then MailDev last (it may get a last e-mail). */
async function shutdown(exitCode, reason) {
  if (stopping) return;
  stopping = true;
  if (reason) (exitCode === 0 ? console.log : console.error)(`\n${paint(reason, exitCode === 0 ? 33 : 31)}`);
  const killed = await group.stop({ timeoutMs: STOP_TIMEOUT_MS, except: ['maildev'] });
  if (killed.length > 0) console.error(`Killed ${killed.join(', ')}: still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM.`);
  await group.stop({ timeoutMs: 5_000 });
  process.exit(exitCode);
}

// Some supervisors deliver one stop twice, to the process and to its group (coreutils `timeout` does): a repeat
// within this window is that echo, not a second Ctrl+C from someone in a hurry.
const REPEATED_SIGNAL_MS = 300;
let firstSignalAt = 0;

function onSignal(signal) {
  if (stopping && Date.now() - firstSignalAt < REPEATED_SIGNAL_MS) return;
  if (stopping) {
    // The second Ctrl+C: no more waiting.
    console.error('\nKilling every process now.');
    group.killAll();
    process.exit(1);
  }
  firstSignalAt = Date.now();
  void shutdown(0, `${signal}: stopping every service (Ctrl+C again to kill them at once)…`);
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return;
  }
  const config = readConfig(process.env);

  if (!(await preflight(config))) process.exit(1);
  if (options.check) process.exit(0);

  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Whatever happens to this process, no service is left running behind it.
  process.on('exit', () => group.killAll());

  await checkPortsFree(config);
  if (options.build) await build();
  if (stopping) return;
  checkBundles(options.build);

  await createDatabase(config);
  const keys = developmentKeys();
  if (keys.generated.length > 0) say(`Generated development keys: ${keys.generated.map((file) => `.data/${file}`).join(', ')}`);
  const env = sharedEnv(config, keys.env);

  await migrate(env);
  if (stopping) return;
  const codes = await seedTags(env);
  if (stopping) return;

  if (!config.smtpUrl) await startMailDev();
  if (stopping) return;
  startServices(env);
  say(`Waiting for every service to be ready (up to ${READY_TIMEOUT_MS / 1000} s)…`);
  const notReady = await waitUntilReady(READY_TIMEOUT_MS);
  if (stopping) return;
  if (notReady.length > 0) {
    await shutdown(1, `Not ready after ${READY_TIMEOUT_MS / 1000} s: ${notReady.join('; ')}. Their output is above; stopping everything.`);
    return;
  }
  console.log(`\n${summary(config, codes)}\n`);
}

main().catch((error) => {
  if (stopping) return; // a step cut short by Ctrl+C: the shutdown under way says enough
  if (error instanceof UsageError) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  const message = error instanceof StartError ? error.message : (error?.stack ?? String(error));
  void shutdown(1, `npm start failed: ${message}`);
});
