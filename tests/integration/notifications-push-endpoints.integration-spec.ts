import { randomUUID } from 'node:crypto';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { RPC_ERROR_HEADER, type DomainEvent, type RpcErrorBody } from '@homing/contracts';
import {
  deleteNamespaceStreams,
  dropSchemas,
  ensureDatabase,
  expectEventually,
  freePort,
  isolatedName,
  PushSink,
  runServiceCommand,
  ServiceProcess,
  testInfra,
} from '@homing/testing';

// Which push services a subscription may name (RELIABILITY S12): checked again when a push is sent, since the allowed
// hosts may have changed after it was registered; and, with production's configuration, 127.0.0.1 or a host that is
// not a browser's push service is refused at registration. Each case runs notifications anew in its own configuration.
describe('push endpoints allowed at send and in production configuration', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const schema = `notifications_${namespace}`;
  const push = new PushSink();
  const env = {
    DATABASE_URL: infra.databaseUrl,
    DATABASE_SCHEMA: schema,
    NATS_URL: infra.natsUrl,
    NATS_NAMESPACE: namespace,
    REDIS_URL: infra.redisUrl,
    // Nothing here sends e-mail to a real server: a port nobody listens on.
    SMTP_URL: 'smtp://127.0.0.1:9',
  };
  const processes: ServiceProcess[] = [];
  let nc: NatsConnection;
  let js: JetStreamClient;
  let redis: IORedis;
  let pushQueue: Queue;
  let db: Client;

  const start = async (extraEnv: NodeJS.ProcessEnv, until: 'ready' | 'live' = 'ready') => {
    const service = new ServiceProcess('notifications', await freePort(), { ...env, ...extraEnv });
    processes.push(service);
    await service.start(30_000, { until });
    return service;
  };
  /** An RPC of notifications as the gateway calls it: the answer, or the error reply's body. */
  const rpc = async (name: 'register-push' | 'reregister-push', request: object) => {
    const reply = await nc.request(`${namespace}.notifications.rpc.${name}`, JSON.stringify(request), { timeout: 5000 });
    return reply.headers?.get(RPC_ERROR_HEADER) ? { error: reply.json<RpcErrorBody>() } : { ok: reply.json() };
  };
  const subscriptionRows = async (endpoint: string) => (await db.query(`SELECT id FROM "${schema}".push_subscriptions WHERE endpoint = $1`, [endpoint])).rows;

  beforeAll(async () => {
    await push.start();
    await ensureDatabase(infra.databaseUrl);
    nc = await connect({ servers: infra.natsUrl });
    js = jetstream(nc);
    // The owner's e-mail consumer asks identity who the owner is; nobody is mailed here.
    nc.subscribe(`${namespace}.identity.rpc.get-user`, {
      callback: (_error, msg) => void msg.respond(JSON.stringify({ id: msg.json<{ userId: string }>().userId, email: 'owner@example.test', language: 'en' })),
    });
    await runServiceCommand('notifications', ['migrate'], env);
    redis = new IORedis(infra.redisUrl, { maxRetriesPerRequest: null });
    pushQueue = new Queue('push', { connection: redis, prefix: `homing_${namespace}` });
    db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    const exitCodes = await Promise.all(processes.map((service) => service.stop()));
    await pushQueue?.obliterate({ force: true }).catch(() => undefined);
    await pushQueue?.close();
    redis?.disconnect();
    await db?.end();
    await push.stop();
    await deleteNamespaceStreams(nc, namespace);
    await nc.drain();
    await dropSchemas(infra.databaseUrl, [schema]);
    expect(exitCodes).toEqual(processes.map(() => 0));
  });

  it('deletes a subscription whose push service is no longer allowed, and fails its push without calling it', async () => {
    const ownerUserId = randomUUID();
    const browser = push.subscribe();
    const before = await start({ NODE_ENV: 'test', PUSH_SERVICE_HOSTS: push.host, NODE_EXTRA_CA_CERTS: push.caPath });
    expect(await rpc('register-push', { subscriber: { userId: ownerUserId }, subscription: browser })).toEqual({ ok: {} });
    const [{ id: subscriptionId }] = await subscriptionRows(browser.endpoint);
    expect(await before.stop()).toBe(0);

    // Started again with the browsers' push services only (the default): the local push service is allowed no more.
    await start({ NODE_ENV: 'test', NODE_EXTRA_CA_CERTS: push.caPath });
    const event: DomainEvent<'messaging.message.created.v1'> = {
      id: randomUUID(),
      subject: 'messaging.message.created.v1',
      occurredAt: new Date().toISOString(),
      correlationId: 'notifications-push-endpoints-test',
      causationId: null,
      producer: 'messaging',
      aggregateId: 'ABCDEFGHJKMNPQRS',
      version: 1,
      data: { itemCode: 'ABCDEFGHJKMNPQRS', conversationId: randomUUID(), author: 'finder', ownerUserId, messageId: 1 },
    };
    await js.publish(`${namespace}.${event.subject}`, JSON.stringify(event), { msgID: event.id });

    const job = await expectEventually(async () => {
      const found = await pushQueue.getJob(`push_${event.id}_${subscriptionId}`);
      expect(await found?.getState()).toBe('failed');
      return found;
    });
    expect(job?.failedReason).toBe('the endpoint is not on a known push service; subscription deleted');
    // Failed for good at once: an endpoint that is not allowed is not tried again.
    expect(job?.attemptsMade).toBe(1);
    expect(await subscriptionRows(browser.endpoint)).toEqual([]);
    expect(push.received.filter((request) => request.endpoint === browser.endpoint)).toEqual([]);
    expect(push.refused.filter((request) => request.endpoint === browser.endpoint)).toEqual([]);
  });

  it('in production configuration, refuses 127.0.0.1 and a host that is not a push service at register and reregister', async () => {
    for (const service of processes) await service.stop();
    // Production, the default PUSH_SERVICE_HOSTS. The machine's Redis keeps it out of readiness (no AOF), not out of work.
    await start({ NODE_ENV: 'production' }, 'live');
    const userId = randomUUID();
    const keys = push.subscribe().keys;
    const allowed = { endpoint: `https://fcm.googleapis.com/fcm/send/${randomUUID()}`, keys };
    await expectEventually(async () => expect(await rpc('register-push', { subscriber: { userId }, subscription: allowed })).toEqual({ ok: {} }));

    for (const endpoint of [`https://127.0.0.1/push/${randomUUID()}`, `https://example.com/push/${randomUUID()}`]) {
      const refused = { error: expect.objectContaining({ status: 422, validation: { endpoint: 'invalid' } }) };
      const registered = await rpc('register-push', { subscriber: { userId }, subscription: { endpoint, keys } });
      expect({ endpoint, registered }).toEqual({ endpoint, registered: refused });
      const reregistered = await rpc('reregister-push', { userId, oldEndpoint: allowed.endpoint, subscription: { endpoint, keys } });
      expect({ endpoint, reregistered }).toEqual({ endpoint, reregistered: refused });
      expect(await subscriptionRows(endpoint)).toEqual([]);
    }
    // The subscription the refused reregistrations named as old is kept.
    expect(await subscriptionRows(allowed.endpoint)).toHaveLength(1);
  });
});
