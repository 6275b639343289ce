// `npm start` (deploy/dev/start.mjs): the preflight names what is missing, where, and how to start it; the
// development keys and the database it prepares. Uses the PostgreSQL, NATS and Redis running on localhost
// (ARCHITECTURE §11); a closed port stands in for a service that is down.
import { spawn } from 'node:child_process';
import { createPublicKey, createECDH, sign, verify } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '@homing/testing';

const ROOT = resolve(__dirname, '../..');
const START = join(ROOT, 'deploy/dev/start.mjs');
const NATS_SERVER = '/usr/sbin/nats-server';

// The start commands of this machine kind's services (the node-svc env facts), as the hint must give them.
const START_HINTS = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  nats: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js',
  redis: 'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379',
};

interface Run {
  code: number | null;
  output: string;
}

/** A port nothing listens on: taken from the OS, then given back. */
const closedPort = freePort;

/** Runs a Node process to its end, collecting stdout and stderr together. */
function runNode(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    // The three URLs from the developer's shell must not leak into a test that relies on the defaults.
    const { DATABASE_URL: _d, NATS_URL: _n, REDIS_URL: _r, ...inherited } = process.env;
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...inherited, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, output }));
  });
}

const check = (env: NodeJS.ProcessEnv = {}) => runNode([START, '--check'], env);

/** Runs an ES module snippet (the helpers are .mjs, which Jest's CommonJS transform does not load) and parses its JSON. */
async function runModule<T>(source: string, env: NodeJS.ProcessEnv = {}): Promise<T> {
  const { code, output } = await runNode(['--input-type=module', '-e', source], env);
  if (code !== 0) throw new Error(`module snippet exited ${code}:\n${output}`);
  return JSON.parse(output) as T;
}

const moduleUrl = (file: string) => pathToFileURL(join(ROOT, 'deploy/dev', file)).href;

describe('npm start --check (preflight)', () => {
  jest.setTimeout(30_000);

  it('passes with the PostgreSQL, NATS and Redis running on localhost (the defaults)', async () => {
    const { code, output } = await check();
    expect(output).toContain('PostgreSQL at postgres://postgres@127.0.0.1:5432/homing');
    expect(output).toContain('NATS at nats://127.0.0.1:4222');
    expect(output).toContain('Redis at redis://127.0.0.1:6379');
    expect(code).toBe(0);
  });

  it.each([
    ['NATS', 'NATS_URL', 'nats', (port: number) => `nats://127.0.0.1:${port}`],
    ['PostgreSQL', 'DATABASE_URL', 'postgres', (port: number) => `postgres://postgres@127.0.0.1:${port}/homing`],
    ['Redis', 'REDIS_URL', 'redis', (port: number) => `redis://127.0.0.1:${port}`],
  ] as const)('names %s, the URL it tried and how to start it when nothing listens there', async (name, variable, service, urlAt) => {
    const url = urlAt(await closedPort());
    const { code, output } = await check({ [variable]: url });
    expect(code).not.toBe(0);
    expect(output).toContain(`${name} at ${url} is not reachable`);
    expect(output).toContain(START_HINTS[service]);
    // Only the service that is down is reported as failing.
    expect(output.match(/✖/g)).toHaveLength(1);
  });

  it('reports every failure in one run, in order, and never prints a password', async () => {
    const [pgPort, natsPort, redisPort] = await Promise.all([closedPort(), closedPort(), closedPort()]);
    const { code, output } = await check({
      DATABASE_URL: `postgres://homing:pg-secret@127.0.0.1:${pgPort}/homing`,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      REDIS_URL: `redis://:redis-secret@127.0.0.1:${redisPort}`,
    });
    expect(code).toBe(1);
    expect(output).toContain(`PostgreSQL at postgres://homing:****@127.0.0.1:${pgPort}/homing`);
    expect(output).toContain(`Redis at redis://:****@127.0.0.1:${redisPort}`);
    expect(output).not.toMatch(/pg-secret|redis-secret/);
    const order = ['✖ PostgreSQL', '✖ NATS', '✖ Redis'].map((headline) => output.indexOf(headline));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('says to check the URL, not how to start a local service, for a server on another host', async () => {
    const { code, output } = await check({ NATS_URL: 'nats://nats.invalid:4222' });
    expect(code).toBe(1);
    expect(output).toContain('NATS at nats://nats.invalid:4222 is not reachable');
    expect(output).toContain('Check NATS_URL');
    expect(output).not.toContain(START_HINTS.nats);
  });

  (existsSync(NATS_SERVER) ? it : it.skip)('reports a NATS server without JetStream as such', async () => {
    const port = await closedPort();
    // A private nats-server without -js, on its own port, killed at the end (ARCHITECTURE §11: fault tests).
    const server = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    try {
      await waitForPort(port);
      const url = `nats://127.0.0.1:${port}`;
      const { code, output } = await check({ NATS_URL: url });
      expect(code).toBe(1);
      expect(output).toContain(`NATS at ${url} has no JetStream`);
      expect(output).toContain('-js');
    } finally {
      server.kill('SIGTERM');
    }
  });

  it('refuses an unknown option', async () => {
    const { code, output } = await runNode([START, '--chek']);
    expect(code).toBe(2);
    expect(output).toContain('unknown option --chek');
  });
});

async function waitForPort(port: number, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolveOpen) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolveOpen(true);
      });
      socket.once('error', () => resolveOpen(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} after ${timeoutMs} ms`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

describe('development keys (.data/)', () => {
  jest.setTimeout(30_000);
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'homing-dev-keys-'));
  });

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  interface KeyEnv {
    env: { JWT_PRIVATE_KEY: string; JWT_PUBLIC_KEY: string; VAPID_PUBLIC_KEY: string; VAPID_PRIVATE_KEY: string; VAPID_SUBJECT: string; LOGIN_CODE_KEY: string };
    generated: string[];
  }

  const keyEnv = (env: NodeJS.ProcessEnv = {}) =>
    runModule<KeyEnv>(
      `import { devKeyEnv } from '${moduleUrl('dev-keys.mjs')}';
       const { JWT_PRIVATE_KEY, JWT_PUBLIC_KEY, VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT, LOGIN_CODE_KEY } = process.env;
       console.log(JSON.stringify(devKeyEnv(process.env.DATA_DIR, { JWT_PRIVATE_KEY, JWT_PUBLIC_KEY, VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT, LOGIN_CODE_KEY })));`,
      { DATA_DIR: dataDir, JWT_PRIVATE_KEY: '', JWT_PUBLIC_KEY: '', VAPID_PUBLIC_KEY: '', VAPID_PRIVATE_KEY: '', VAPID_SUBJECT: '', LOGIN_CODE_KEY: '', ...env },
    );

  it('generates an ES256 key pair that signs and verifies, and a VAPID key pair in web-push form', async () => {
    const { env, generated } = await keyEnv();
    expect(generated.sort()).toEqual(['jwt-private.pem', 'jwt-public.pem', 'login-code.key', 'vapid.json']);
    expect(Buffer.byteLength(env.LOGIN_CODE_KEY)).toBeGreaterThanOrEqual(32);

    expect(env.JWT_PRIVATE_KEY).toContain('-----BEGIN PRIVATE KEY-----');
    expect(env.JWT_PUBLIC_KEY).toContain('-----BEGIN PUBLIC KEY-----');
    const publicKey = createPublicKey(env.JWT_PUBLIC_KEY);
    expect(publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const signature = sign('sha256', Buffer.from('header.payload'), { key: env.JWT_PRIVATE_KEY, dsaEncoding: 'ieee-p1363' });
    expect(verify('sha256', Buffer.from('header.payload'), { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);

    const vapidPublic = Buffer.from(env.VAPID_PUBLIC_KEY, 'base64url');
    const vapidPrivate = Buffer.from(env.VAPID_PRIVATE_KEY, 'base64url');
    expect(vapidPublic).toHaveLength(65);
    expect(vapidPublic[0]).toBe(0x04); // uncompressed point
    expect(vapidPrivate).toHaveLength(32);
    expect(env.VAPID_PUBLIC_KEY).not.toMatch(/[+/=]/); // base64url, unpadded
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(vapidPrivate);
    expect(ecdh.getPublicKey().equals(vapidPublic)).toBe(true);
    expect(env.VAPID_SUBJECT).toBe('mailto:dev@homing.localhost');
  });

  it('reuses the keys on the next start', async () => {
    const first = await keyEnv();
    const second = await keyEnv();
    expect(second.generated).toEqual([]);
    expect(second.env).toEqual(first.env);
  });

  it('lets keys from the environment win, and refuses half a pair', async () => {
    const { env } = await keyEnv();
    const fromShell = await keyEnv({ VAPID_PUBLIC_KEY: env.VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: env.VAPID_PRIVATE_KEY, VAPID_SUBJECT: 'mailto:me@example.com' });
    expect(fromShell.env.VAPID_SUBJECT).toBe('mailto:me@example.com');
    await expect(keyEnv({ JWT_PRIVATE_KEY: env.JWT_PRIVATE_KEY })).rejects.toThrow(/JWT_PRIVATE_KEY is set but JWT_PUBLIC_KEY is not/);
  });
});

describe('the application database', () => {
  jest.setTimeout(30_000);
  const name = `homing_start_spec_${process.pid}`;
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;

  afterAll(async () => {
    await runModule(
      `import pg from 'pg';
       const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
       await client.connect();
       await client.query('DROP DATABASE IF EXISTS ${name}');
       await client.end();
       console.log('null');`,
    );
  });

  it('is created when missing, and left alone when it exists', async () => {
    const ensure = () => runModule<boolean>(`import { ensureDatabase } from '${moduleUrl('database.mjs')}'; console.log(JSON.stringify(await ensureDatabase('${url}')));`);
    expect(await ensure()).toBe(true);
    expect(await ensure()).toBe(false);
  });
});
