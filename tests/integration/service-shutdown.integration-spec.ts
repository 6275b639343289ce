import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as connectTcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import {
  deleteNamespaceStreams,
  dropSchemas,
  ensureDatabase,
  expectEventually,
  freePort,
  isolatedName,
  runServiceCommand,
  ServiceProcess,
  testInfra,
} from '@homing/testing';

const NATS_SERVER = '/usr/sbin/nats-server';

/** SIGTERM, and how long the process took to exit. */
async function timedStop(service: ServiceProcess): Promise<{ code: number | null; ms: number }> {
  const begin = Date.now();
  const code = await service.stop();
  return { code, ms: Date.now() - begin };
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolveSocket, reject) => {
    const socket = connectTcp({ host: '127.0.0.1', port }, () => resolveSocket(socket));
    socket.once('error', reject);
  });
}

// Kubernetes waits 30 s after SIGTERM, then kills: a service must stop promptly whatever its dependencies do.
describe('service shutdown', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const schema = `items_${namespace}`;
  const env = { DATABASE_URL: infra.databaseUrl, NATS_NAMESPACE: namespace, DATABASE_SCHEMA: schema, NODE_ENV: 'test' };
  const started: ServiceProcess[] = [];
  const startService = async (app: string, extraEnv: NodeJS.ProcessEnv, until: 'ready' | 'live' = 'ready') => {
    const service = new ServiceProcess(app, await freePort(), { ...env, ...extraEnv });
    started.push(service);
    await service.start(20_000, { until });
    return service;
  };

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    await runServiceCommand('items', ['migrate'], { ...env, NATS_URL: infra.natsUrl });
  });

  afterAll(async () => {
    await Promise.all(started.map((service) => service.stop('SIGKILL')));
    const nc = await connect({ servers: infra.natsUrl });
    await deleteNamespaceStreams(nc, namespace);
    await nc.drain();
    await dropSchemas(infra.databaseUrl, [schema, `messaging_${namespace}`]);
  });

  // items waits for NATS in its RPC server and outbox relay, messaging also in its event consumers.
  it.each(['items', 'messaging'])('%s stops promptly on SIGTERM while still waiting for an unreachable NATS', async (app) => {
    // A port nothing listens on: NATS is "down" for this process only.
    const service = await startService(app, { NATS_URL: `nats://127.0.0.1:${await freePort()}`, DATABASE_SCHEMA: `${app}_${namespace}` }, 'live');
    expect((await fetch(`http://127.0.0.1:${service.port}/health/ready`)).status).toBe(503);

    const { code, ms } = await timedStop(service);
    expect(code).toBe(0);
    // It used to wait out the 25 s deadline and exit 1.
    expect(ms).toBeLessThan(10_000);
    expect(service.logs).not.toContain('shutdown took over');
  });

  (existsSync(NATS_SERVER) ? it : it.skip)('stops promptly on SIGTERM when NATS went away while it ran', async () => {
    // A private nats-server on its own port, killed by this test (ARCHITECTURE §11: fault tests).
    const port = await freePort();
    const storeDir = mkdtempSync(join(tmpdir(), 'homing-nats-'));
    let server: ChildProcess | undefined = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
    try {
      const services = await Promise.all(
        ['items', 'messaging'].map((app) => startService(app, { NATS_URL: `nats://127.0.0.1:${port}`, DATABASE_SCHEMA: `${app}_${namespace}` })),
      );
      const serverGone = new Promise((resolveGone) => server?.once('exit', resolveGone));
      server.kill('SIGKILL');
      await serverGone;
      server = undefined;
      for (const service of services) {
        await expectEventually(async () => expect((await fetch(`http://127.0.0.1:${service.port}/health/ready`)).status).toBe(503));
      }

      // Exit 0 well inside the 25 s deadline, never waiting for the missing server. The bound is
      // loose on purpose: a loaded 2-core CI machine stretches every stop.
      for (const { code, ms } of await Promise.all(services.map(timedStop))) {
        expect(code).toBe(0);
        expect(ms).toBeLessThan(10_000);
      }
    } finally {
      server?.kill('SIGKILL');
      rmSync(storeDir, { recursive: true, force: true });
    }
  });

  it("closes the gateway's connections on SIGTERM, even one whose request never completes", async () => {
    const gateway = await startService('gateway', { NATS_URL: infra.natsUrl, REDIS_URL: infra.redisUrl });
    // A kept-alive connection that answered a request, and one stuck in the middle of its request's headers: the
    // shape a long-lived response (server-sent events) leaves behind, as far as closing the server goes.
    const idle = await openSocket(gateway.port);
    idle.write(`GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
    await new Promise((resolveData) => idle.once('data', resolveData));
    const stuck = await openSocket(gateway.port);
    stuck.write('GET /api/v1/items/ABCD HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const closed = Promise.all([idle, stuck].map((socket) => new Promise((resolveClosed) => socket.once('close', resolveClosed))));

    const { code, ms } = await timedStop(gateway);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    await closed;
  });

  it('answers a request in flight at SIGTERM before the gateway closes its connections', async () => {
    const gateway = await startService('gateway', { NATS_URL: infra.natsUrl, REDIS_URL: infra.redisUrl });
    // Stands in for items, answering the scan a second late.
    const nc = await connect({ servers: infra.natsUrl });
    // The scan's lookup: no such tag (a null record), answered a second late.
    const slowItems = nc.subscribe(`${namespace}.items.rpc.get-public-many`, {
      callback: (_error, msg) => void setTimeout(() => msg.respond(JSON.stringify([null])), 1000),
    });
    await nc.flush();
    try {
      const answer = fetch(`http://127.0.0.1:${gateway.port}/api/v1/items/ABCD-EFGH-JKMN-PQRS`).then(async (response) => `${response.status} ${await response.text()}`);
      await expectEventually(() => expect(slowItems.getReceived()).toBe(1));
      const stopped = timedStop(gateway);
      expect(await answer).toMatch(/^404 .*ITEM_NOT_FOUND/);
      expect((await stopped).code).toBe(0);
    } finally {
      await nc.drain();
    }
  });
});

