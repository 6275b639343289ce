import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { revokedSessionKey, RPC_ERROR_HEADER, type RpcErrorBody } from '@homing/contracts';
import { expectEventually, PushSink } from '@homing/testing';
import { eventOf, NotificationsTestSetup } from '../../apps/notifications/test/notifications-test-setup';

// Which push services a subscription may name (RELIABILITY S12): checked again when a push is sent, since the allowed
// hosts may have changed after it was registered; and, with production's configuration, 127.0.0.1 or a host that is
// not a browser's push service is refused at registration. Each case runs notifications anew in its own configuration.
// Last, an owner's subscription stored after their session was revoked (an erasure's race) is taken away again.
describe('push endpoints allowed at send and in production configuration', () => {
  // Nothing here sends e-mail to a real server: a port nobody listens on.
  const setup = new NotificationsTestSetup({ SMTP_URL: 'smtp://127.0.0.1:9' });
  const { namespace, schema, processes } = setup;
  const push = new PushSink();

  const start = (extraEnv: NodeJS.ProcessEnv, until: 'ready' | 'live' = 'ready') => setup.start(extraEnv, { until });
  /** An RPC of notifications as the gateway calls it: the answer, or the error reply's body. */
  const rpc = async (name: 'register-push' | 'reregister-push', request: object) => {
    const reply = await setup.nc.request(`${namespace}.notifications.rpc.${name}`, JSON.stringify(request), { timeout: 5000 });
    return reply.headers?.get(RPC_ERROR_HEADER) ? { error: reply.json<RpcErrorBody>() } : { ok: reply.json() };
  };
  const subscriptionRows = async (endpoint: string) => (await setup.db.query(`SELECT id FROM "${schema}".push_subscriptions WHERE endpoint = $1`, [endpoint])).rows;

  beforeAll(async () => {
    await push.start();
    await setup.setUp();
    // The owner's e-mail consumer asks identity who the owner is; nobody is mailed here.
    setup.answerUsers((userId) => ({ id: userId, email: 'owner@example.test', language: 'en' }));
  });

  afterAll(async () => {
    const exitCodes = await setup.tearDown();
    await push.stop();
    expect(exitCodes).toEqual(exitCodes.map(() => 0));
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
    const event = eventOf('messaging.message.created.v1', { itemCode: 'ABCDEFGHJKMNPQRS', conversationId: randomUUID(), author: 'finder', ownerUserId, messageId: 1 });
    await setup.publish(event);

    const job = await expectEventually(async () => {
      // The state first, then the job: a job read before it failed would not say why.
      expect(await setup.queue('push').getJobState(`push_${event.id}_${subscriptionId}`)).toBe('failed');
      return setup.queue('push').getJob(`push_${event.id}_${subscriptionId}`);
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

  it('takes an owner’s subscription away again when the session that asked was revoked before it was stored', async () => {
    for (const service of processes) await service.stop();
    await start({ NODE_ENV: 'test', PUSH_SERVICE_HOSTS: push.host });
    const redis = new IORedis(setup.infra.redisUrl);
    try {
      const userId = randomUUID();
      const [live, revoked] = [randomUUID(), randomUUID()];
      // As identity revokes a session (an erasure revokes them all before its commit and its event).
      await redis.set(revokedSessionKey(namespace, revoked), '1', 'EX', 60);
      const kept = push.subscribe();
      expect(await rpc('register-push', { subscriber: { userId }, subscription: kept, sessionId: live })).toEqual({ ok: {} });
      expect(await subscriptionRows(kept.endpoint)).toHaveLength(1);

      const late = push.subscribe();
      const refused = { error: expect.objectContaining({ status: 401, response_code: 'UNAUTHORIZED' }) };
      expect(await rpc('register-push', { subscriber: { userId }, subscription: late, sessionId: revoked })).toEqual(refused);
      expect(await subscriptionRows(late.endpoint)).toEqual([]);
      expect(await rpc('reregister-push', { userId, oldEndpoint: kept.endpoint, subscription: late, sessionId: revoked })).toEqual(refused);
      expect(await subscriptionRows(late.endpoint)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it('gives a browser’s endpoint to the owner who registered it last: the owner before is no longer pushed to it', async () => {
    // One browser, two owners one after the other (a shared computer, a session that expired without a log-out): the
    // browser's endpoint is the same, and each finder's message of the first owner's items went on to show there.
    const [first, second] = [randomUUID(), randomUUID()];
    const browser = push.subscribe();
    expect(await rpc('register-push', { subscriber: { userId: first }, subscription: browser })).toEqual({ ok: {} });
    expect(await rpc('register-push', { subscriber: { userId: second }, subscription: browser })).toEqual({ ok: {} });
    const owners = async () => (await setup.db.query(`SELECT user_id FROM "${schema}".push_subscriptions WHERE endpoint = $1`, [browser.endpoint])).rows;
    expect(await owners()).toEqual([{ user_id: second }]);
    // A finder's subscription of the same browser (it found something too) is its own and stays.
    const conversationId = randomUUID();
    expect(await rpc('register-push', { subscriber: { conversationId }, subscription: browser })).toEqual({ ok: {} });
    expect(await rpc('register-push', { subscriber: { userId: first }, subscription: browser })).toEqual({ ok: {} });
    expect(await subscriptionRows(browser.endpoint)).toHaveLength(2);
    expect(await owners()).toEqual(expect.arrayContaining([{ user_id: first }, { user_id: null }]));
  });
});
