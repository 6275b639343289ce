// Preflight for `npm start`: can PostgreSQL, NATS (with JetStream) and Redis be reached at the configured URLs?
//
// Every check runs, so one run tells everything that is wrong, and each is bounded by a short timeout, so a
// firewalled host fails in seconds rather than hanging. Every failure names the service, the URL tried (password
// masked), the error, and what to do about it on this machine.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as connectNats } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';

export const CHECK_TIMEOUT_MS = 3_000;

/**
 * How each service is started on a development machine of this kind (the env facts for `node-svc` machines).
 * Each command starts the server on its standard port only.
 */
export const SERVICES = {
  postgres: {
    name: 'PostgreSQL',
    variable: 'DATABASE_URL',
    port: 5432,
    start: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  },
  nats: {
    name: 'NATS',
    variable: 'NATS_URL',
    port: 4222,
    start:
      'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log',
  },
  redis: {
    name: 'Redis',
    variable: 'REDIS_URL',
    port: 6379,
    start:
      'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
  },
};

// Errors that mean "nothing answered there": only these get the "start it" hint. Anything else (a bad password,
// a missing role) means a server did answer, and starting another would not help.
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'TIMEOUT']);

/** The URL as safe to print: any password replaced by ****. */
export function maskUrl(url) {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '****';
    return parsed.toString();
  } catch {
    // Not a URL we can parse: still never print what looks like a password.
    return String(url).replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@]*@/i, '$1:****@');
  }
}

/** True when the URL's host is this machine, so the machine's own start command applies. */
export function isLocalUrl(url) {
  let hostname;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return false;
  }
  // An empty host is a PostgreSQL Unix socket URL (postgres:///homing?host=/var/run/postgresql).
  return hostname === '' || hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function portOf(url, fallback) {
  try {
    return Number(new URL(url).port) || fallback;
  } catch {
    return fallback;
  }
}

/** Rejects with a TIMEOUT error if the promise has not settled in time; a safety net over each client's own timeout. */
function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`${what} did not answer within ${ms / 1000} s`), { code: 'TIMEOUT' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One readable line from an error, including the cause that client libraries often wrap the useful part in. */
function describeError(error) {
  // AggregateError (Node's happy-eyeballs connect to localhost) has no message of its own, only inner errors.
  const message = error?.message || (Array.isArray(error?.errors) && error.errors.map((each) => each.message).join('; ')) || String(error);
  const cause = error?.cause?.message;
  return cause && cause !== message ? `${message} (${cause})` : message;
}

function errorCode(error) {
  if (error?.code && typeof error.code === 'string') return error.code;
  if (error?.cause?.code) return error.cause.code;
  if (Array.isArray(error?.errors) && error.errors[0]?.code) return error.errors[0].code;
  // nats.js reports a refused or timed-out connect with its own error classes and no code.
  if (/connection refused/i.test(error?.message ?? '')) return 'ECONNREFUSED';
  if (error?.name === 'TimeoutError' || /timeout|timed out/i.test(error?.message ?? '')) return 'TIMEOUT';
  return undefined;
}

/** The same server URL, but for the `postgres` maintenance database: the app's database may not exist yet. */
export function maintenanceDatabaseUrl(databaseUrl) {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  return url.toString();
}

export async function checkPostgres(url, timeoutMs = CHECK_TIMEOUT_MS) {
  const client = new pg.Client({ connectionString: maintenanceDatabaseUrl(url), connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => undefined); // a dropped connection after the check is not the check's problem
  try {
    await withTimeout(
      client.connect().then(() => client.query('SELECT 1')),
      timeoutMs + 500,
      'PostgreSQL',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

export class NoJetStreamError extends Error {}

export async function checkNats(url, timeoutMs = CHECK_TIMEOUT_MS) {
  // No reconnects: a preflight wants the first answer, not a client that keeps trying in the background.
  const nc = await withTimeout(connectNats({ servers: url, timeout: timeoutMs, reconnect: false }), timeoutMs + 500, 'NATS');
  try {
    // The services keep their events in JetStream streams; a plain nats-server (started without -js) accepts
    // connections but would fail them later, so ask JetStream itself.
    const jsm = await jetstreamManager(nc, { checkAPI: false, timeout: timeoutMs });
    try {
      await withTimeout(jsm.getAccountInfo(), timeoutMs + 500, 'JetStream');
    } catch (error) {
      if (error?.name === 'JetStreamNotEnabled' || /jetstream is not enabled|not enabled for account/i.test(error?.message ?? '')) {
        throw new NoJetStreamError(describeError(error), { cause: error });
      }
      throw error;
    }
  } finally {
    await nc.close().catch(() => undefined);
  }
}

export async function checkRedis(url, timeoutMs = CHECK_TIMEOUT_MS) {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    // Fail at once instead of retrying forever, and do not queue the PING while disconnected.
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  // ioredis emits the real reason (ECONNREFUSED, ENOTFOUND) as an event and then rejects with a bare
  // "Connection is closed.": keep the event's error to report instead.
  let connectError;
  redis.on('error', (error) => (connectError ??= error));
  try {
    await withTimeout(
      redis.connect().then(() => redis.ping()),
      timeoutMs + 500,
      'Redis',
    ).catch((error) => {
      throw connectError ?? error;
    });
  } finally {
    redis.disconnect();
  }
}

const CHECKS = { postgres: checkPostgres, nats: checkNats, redis: checkRedis };

/** What to do about a failure: the machine's start command for a local server that is not there, else check the URL. */
function hintFor(key, url, error) {
  const service = SERVICES[key];
  const local = isLocalUrl(url);
  if (error instanceof NoJetStreamError) {
    return local
      ? [`Stop that nats-server and start it with JetStream (-js) on this machine:`, `  ${service.start}`]
      : [`Enable JetStream on that server (nats-server -js), or point ${service.variable} at one that has it.`];
  }
  if (!UNREACHABLE_CODES.has(errorCode(error))) {
    return [`Something answered there, but the connection failed: check ${service.variable} (host, port, user, password).`];
  }
  if (!local) return [`Check ${service.variable}: is the URL right, and is that server up and reachable from here?`];
  const lines = [`Start it on this machine with:`, `  ${service.start}`];
  const port = portOf(url, service.port);
  if (port !== service.port) {
    lines.push(`(that starts it on port ${service.port}; ${service.variable} points at port ${port}: change one of them)`);
  }
  return lines;
}

function failureHeadline(key, shownUrl, error) {
  const { name } = SERVICES[key];
  if (error instanceof NoJetStreamError) return `${name} at ${shownUrl} has no JetStream (${error.message})`;
  if (UNREACHABLE_CODES.has(errorCode(error))) return `${name} at ${shownUrl} is not reachable: ${describeError(error)}`;
  return `${name} at ${shownUrl} failed: ${describeError(error)}`;
}

/**
 * Checks PostgreSQL, NATS and Redis at once (so the worst case is one timeout, not three) and returns one
 * result per service, always in that order.
 * @param {{postgres: string, nats: string, redis: string}} urls
 */
export async function runPreflight(urls, timeoutMs = CHECK_TIMEOUT_MS) {
  const keys = Object.keys(SERVICES);
  const settled = await Promise.allSettled(keys.map((key) => CHECKS[key](urls[key], timeoutMs)));
  return keys.map((key, index) => {
    const url = urls[key];
    const shownUrl = maskUrl(url);
    const outcome = settled[index];
    if (outcome.status === 'fulfilled') return { key, name: SERVICES[key].name, url: shownUrl, ok: true };
    const error = outcome.reason;
    return {
      key,
      name: SERVICES[key].name,
      url: shownUrl,
      ok: false,
      // Error texts (pg's, for one) may repeat the connection string; never print a password from there either.
      headline: failureHeadline(key, shownUrl, error).replaceAll(url, shownUrl),
      hint: hintFor(key, url, error),
    };
  });
}

/** The results as lines for the terminal: one per service that is fine, a headline and a hint per failure. */
export function formatPreflight(results) {
  const lines = [];
  for (const result of results) {
    if (result.ok) {
      lines.push(`  ✔ ${result.name} at ${result.url}`);
    } else {
      lines.push(`  ✖ ${result.headline}`, ...result.hint.map((line) => `      ${line}`));
    }
  }
  return lines.join('\n');
}
