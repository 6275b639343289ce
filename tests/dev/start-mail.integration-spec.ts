// `npm start` (deploy/dev/start.mjs) as a developer runs it after a build (`--no-build`): every service and MailDev
// up, and an e-mail the product sends shows in the mail catcher's web API. Against the PostgreSQL, NATS and Redis on
// localhost, with ports, a database, a NATS namespace and a data directory of its own, so it never meets the
// developer's own `npm start`; stopped with Ctrl+C (SIGINT), as a developer stops it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { deleteNamespaceStreams, expectEventually, freePort, isolatedName, testInfra } from '@homing/testing';

const ROOT = resolve(__dirname, '../..');
const START = join(ROOT, 'deploy/dev/start.mjs');

interface MailDevEmail {
  subject: string;
  to: Array<{ address: string }>;
  text?: string;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolveAnswer(true);
    });
    socket.once('error', () => resolveAnswer(false));
  });
}

describe('npm start -- --no-build', () => {
  jest.setTimeout(60_000);
  const infra = testInfra();
  const namespace = isolatedName();
  const database = `homing_start_${namespace}`;
  const databaseUrl = (() => {
    const url = new URL(infra.databaseUrl);
    url.pathname = `/${database}`;
    return url.toString();
  })();
  const dataDir = mkdtempSync(join(tmpdir(), 'homing-start-'));
  let ports: Record<
    'GATEWAY_PORT' | 'IDENTITY_PORT' | 'ITEMS_PORT' | 'MESSAGING_PORT' | 'NOTIFICATIONS_PORT' | 'MAIL_RELAY_PORT' | 'RELAY_SMTP_PORT' | 'MAILDEV_SMTP_PORT' | 'MAILDEV_WEB_PORT',
    number
  >;
  let start: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;

  beforeAll(async () => {
    ports = {
      GATEWAY_PORT: await freePort(),
      IDENTITY_PORT: await freePort(),
      ITEMS_PORT: await freePort(),
      MESSAGING_PORT: await freePort(),
      NOTIFICATIONS_PORT: await freePort(),
      MAIL_RELAY_PORT: await freePort(),
      RELAY_SMTP_PORT: await freePort(),
      MAILDEV_SMTP_PORT: await freePort(),
      MAILDEV_WEB_PORT: await freePort(),
    };
    // A DATABASE_SCHEMA or SMTP_URL in the test's environment would not be in a developer's shell.
    const { DATABASE_SCHEMA: _schema, SMTP_URL: _smtp, PUBLIC_URL: _public, ...inherited } = process.env;
    start = spawn(process.execPath, [START, '--no-build'], {
      cwd: ROOT,
      env: {
        ...inherited,
        ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
        NODE_ENV: 'development',
        NO_COLOR: '1',
        DATABASE_URL: databaseUrl,
        NATS_URL: infra.natsUrl,
        REDIS_URL: infra.redisUrl,
        NATS_NAMESPACE: namespace,
        HOMING_DATA_DIR: dataDir,
        // To have an account to send a login code to.
        REGISTRATION_ENABLED: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own: if the test fails half-way, the group is killed whole, the services with it.
      detached: true,
    });
    start.stdout?.on('data', (chunk) => (output += chunk));
    start.stderr?.on('data', (chunk) => (output += chunk));
    exited = new Promise((resolveExit) => start.once('exit', (code) => resolveExit(code)));
    await expectEventually(
      () => {
        if (start.exitCode !== null) throw new Error(`npm start exited with ${start.exitCode}:\n${output}`);
        expect(output).toContain('Homing is running');
      },
      { timeoutMs: 80_000, intervalMs: 200 },
    );
  }, 90_000);

  afterAll(async () => {
    // Whatever a failed test left running: start.mjs and every process it started, by its process group.
    if (start?.pid !== undefined && start.exitCode === null && start.signalCode === null) {
      process.kill(-start.pid, 'SIGKILL');
      await exited;
    }
    const nc = await connect({ servers: infra.natsUrl });
    await deleteNamespaceStreams(nc, namespace);
    await nc.drain();
    const admin = new Client({ connectionString: infra.databaseUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
    // MailDev keeps the e-mails it caught in a directory of its own under the temporary directory.
    const mailDir = /MailDev using directory (\S+)/.exec(output)?.[1];
    if (mailDir?.startsWith(tmpdir())) rmSync(mailDir, { recursive: true, force: true });
  });

  it('prints where the mail relay takes mail, and it answers there', async () => {
    expect(output).toContain(`smtp://localhost:${ports.RELAY_SMTP_PORT}: mail to tag-<code>@relay.localhost`);
    expect(await answers(ports.RELAY_SMTP_PORT)).toBe(true);
  });

  it('runs each service with the Node options its build chose, as the image does', () => {
    const pids = execFileSync('pgrep', ['-P', String(start.pid)], { encoding: 'utf8' }).trim().split('\n').map(Number);
    const commandOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const nodeOptionsOf = (pid: number) =>
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((entry) => entry.startsWith('NODE_OPTIONS='))
        ?.slice('NODE_OPTIONS='.length);
    for (const app of ['gateway', 'identity', 'items', 'messaging', 'notifications', 'mail-relay']) {
      const pid = pids.find((candidate) => commandOf(candidate).includes(join(ROOT, 'dist/apps', app, 'main.js')));
      const own = readFileSync(join(ROOT, 'dist/apps', app, 'node-options'), 'utf8').trim();
      const expected = [own, process.env.NODE_OPTIONS ?? ''].filter(Boolean).join(' ') || undefined;
      expect({ app, running: pid !== undefined, nodeOptions: pid === undefined ? undefined : nodeOptionsOf(pid) }).toEqual({ app, running: true, nodeOptions: expected });
    }
    // The message path's services run with a young generation of their own (docs/benchmarks.md).
    expect(readFileSync(join(ROOT, 'dist/apps/notifications/node-options'), 'utf8')).toContain('--max-semi-space-size=');
  });

  it('shows the login code e-mail in the mail catcher, and stops everything on Ctrl+C', async () => {
    const api = `http://127.0.0.1:${ports.GATEWAY_PORT}/api/v1`;
    const email = `start-${randomUUID()}@example.test`;
    const registered = await fetch(`${api}/user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: `Pw-${randomUUID()}` }),
    });
    expect(registered.status).toBe(201);
    expect((await fetch(`${api}/magic-link?email=${encodeURIComponent(email)}`)).status).toBe(200);

    const mails = await expectEventually(
      async () => {
        const inbox = (await (await fetch(`http://127.0.0.1:${ports.MAILDEV_WEB_PORT}/email`)).json()) as MailDevEmail[];
        const found = inbox.filter((mail) => mail.to.some((to) => to.address === email) && mail.subject === 'Your Homing login code');
        expect(found).toHaveLength(1);
        return found;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(mails[0].text).toContain(`http://localhost:${ports.GATEWAY_PORT}/login/code?code=`);

    start.kill('SIGINT');
    expect(await exited).toBe(0);
    for (const [name, port] of Object.entries(ports)) expect({ name, answers: await answers(port) }).toEqual({ name, answers: false });
  });
});
