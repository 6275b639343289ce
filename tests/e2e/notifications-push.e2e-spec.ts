import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { CreateMessageResponse, HttpErrorBody, VapidPublicKey } from '@homing/contracts';
import { expectEventually, testKeys } from '@homing/testing';
import { apiCall, ownedItem as ownedItemOf, ownerOfStack, type ApiCaller } from '../support/api';
import { startStack, type Stack } from '../support/stack';

// Web push through the whole stack: the web app's calls (VAPID key, owner and finder subscriptions) at the gateway,
// messages written through it, and pushes arriving at the stack's push service, decrypted as a browser would.
describe('web push through the whole stack', () => {
  let stack: Stack;
  let redis: IORedis;
  let pushQueue: Queue;

  beforeAll(async () => {
    stack = await startStack();
    redis = new IORedis(stack.shared.REDIS_URL ?? '', { maxRetriesPerRequest: null });
    pushQueue = new Queue('push', { connection: redis, prefix: `homing_${stack.namespace}` });
  });

  afterAll(async () => {
    await pushQueue?.close();
    redis?.disconnect();
    await stack?.stop();
  });

  /** Every push job of the stack has run: none waiting, running or delayed. */
  const pushJobsSettled = () =>
    expectEventually(async () => expect(await pushQueue.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 0, active: 0, delayed: 0 }));

  const call = <T = HttpErrorBody>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);
  const ownedItem = () => ownedItemOf(stack);

  it('gives the web app the VAPID public key without a log-in', async () => {
    expect(await call<VapidPublicKey>('GET', '/push/vapid-public-key')).toEqual({ status: 200, body: { public_key: testKeys().VAPID_PUBLIC_KEY } });
  });

  it('pushes a finder message to the owner and the owner reply to the finder, each subscribed at the gateway', async () => {
    const { code, token } = await ownedItem();
    const ownerBrowser = stack.push.subscribe();
    expect((await call('POST', '/user/push/register', { token, body: ownerBrowser })).status).toBe(204);

    const first = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your keys' } });
    expect(first.status).toBe(201);
    const [toOwner] = await stack.push.waitForPushes(ownerBrowser);
    expect(toOwner.payload).toEqual({ kind: 'new-message', author: 'finder', url: `/found/${code}` });
    expect(toOwner.text).not.toContain('Found your keys');

    const finderBrowser = stack.push.subscribe();
    const finderToken = first.body.finder_token;
    expect((await call('POST', `/items/${code}/push/register`, { finderToken, body: finderBrowser })).status).toBe(204);
    expect((await call('POST', `/items/${code}/messages`, { token, body: { content: 'Thank you!' } })).status).toBe(201);
    const [toFinder] = await stack.push.waitForPushes(finderBrowser);
    // A finder's push names the language of their conversation (they wrote without one: English).
    expect(toFinder.payload).toEqual({ kind: 'new-message', author: 'owner', url: `/found/${code}`, language: 'en' });

    // Unsubscribed: the next message reaches the owner's browser no more, while the owner's other browser gets it.
    const ownerPhone = stack.push.subscribe();
    expect((await call('POST', '/user/push/register', { token, body: ownerPhone })).status).toBe(204);
    expect((await call('POST', '/user/push/unregister', { token, body: { endpoint: ownerBrowser.endpoint } })).status).toBe(204);
    expect((await call('POST', `/items/${code}/messages`, { finderToken, body: { content: 'Where shall we meet?' } })).status).toBe(201);
    const { rows } = await stack.db.query(`SELECT count(*)::int AS count FROM "${stack.schemaOf('notifications')}".push_subscriptions WHERE endpoint = $1`, [ownerBrowser.endpoint]);
    expect(rows).toEqual([{ count: 0 }]);
    await stack.push.waitForPushes(ownerPhone);
    await pushJobsSettled();
    expect(stack.push.pushesTo(ownerBrowser)).toHaveLength(1);
  });

  it('moves an owner subscription the browser changed to its new endpoint', async () => {
    const { code, token } = await ownedItem();
    const before = stack.push.subscribe();
    const after = stack.push.subscribe();
    expect((await call('POST', '/user/push/register', { token, body: before })).status).toBe(204);
    expect((await call('POST', '/user/push/reregister', { token, body: { ...after, old_endpoint: before.endpoint } })).status).toBe(204);
    expect((await call('POST', `/items/${code}/messages`, { body: { content: 'Found it' } })).status).toBe(201);
    await stack.push.waitForPushes(after);
    expect(stack.push.pushesTo(before)).toHaveLength(0);
  });

  it('answers bad subscriptions and strangers in the HTTP contract, never 500', async () => {
    const { code, token } = await ownedItem();
    const valid = stack.push.subscribe();
    const expectError = async (answer: Promise<{ status: number; body: HttpErrorBody }>, status: number, responseCode: string) => {
      const { status: got, body } = await answer;
      expect({ status: got, response_code: body.response_code }).toEqual({ status, response_code: responseCode });
      expect(typeof body.message).toBe('string');
      return body;
    };
    // Not on the push service allowed in this configuration (nor on any in production).
    for (const endpoint of ['https://127.0.0.1/push/1', 'https://169.254.169.254/latest', 'https://example.com/push/1']) {
      const body = await expectError(call('POST', '/user/push/register', { token, body: { ...valid, endpoint } }), 422, 'VALIDATION_ERROR');
      expect(body.validation).toEqual({ endpoint: 'invalid' });
    }
    await expectError(call('POST', '/user/push/register', { token, body: { ...valid, endpoint: 'http://example.com/push' } }), 422, 'VALIDATION_ERROR');
    await expectError(call('POST', '/user/push/register', { token, body: { ...valid, keys: { p256dh: 'short', auth: valid.keys.auth } } }), 422, 'VALIDATION_ERROR');
    await expectError(call('POST', '/user/push/register', { token, body: { ...valid, extra: true } }), 400, 'MALFORMED_REQUEST');
    await expectError(call('POST', '/user/push/register', { token, body: [] }), 400, 'MALFORMED_REQUEST');
    await expectError(call('POST', '/user/push/unregister', { token, body: {} }), 422, 'VALIDATION_ERROR');
    // An endpoint to forget or replace is one a browser could have: a NUL in it answered 500 (PostgreSQL cannot compare it).
    await expectError(call('POST', '/user/push/unregister', { token, body: { endpoint: 'https://push.example/\u0000' } }), 422, 'VALIDATION_ERROR');
    await expectError(call('POST', '/user/push/reregister', { token, body: { ...valid, old_endpoint: 'https://push.example/\u0000' } }), 422, 'VALIDATION_ERROR');
    await expectError(call('POST', '/user/push/register', { body: valid }), 401, 'UNAUTHORIZED');
    // A finder needs the token of a conversation of this item.
    await expectError(call('POST', `/items/${code}/push/register`, { body: valid }), 403, 'FORBIDDEN');
    await expectError(call('POST', `/items/${code}/push/register`, { finderToken: 'A'.repeat(22), body: valid }), 403, 'FORBIDDEN');
    const other = await ownedItem();
    const written = await call<CreateMessageResponse>('POST', `/items/${other.code}/messages`, { body: { content: 'Hello' } });
    await expectError(call('POST', `/items/${code}/push/register`, { finderToken: written.body.finder_token, body: valid }), 403, 'FORBIDDEN');
    await expectError(call('POST', `/items/NOPE-${randomUUID().slice(0, 4)}/push/register`, { finderToken: written.body.finder_token, body: valid }), 404, 'ITEM_NOT_FOUND');
  });

  it('stops pushing to the browser of a session identity revoked, while the owner’s other session keeps its pushes', async () => {
    // Two sessions of one owner (a lost phone, a laptop), each with the browser's subscription; the laptop changes
    // the password, which revokes the phone's session: the phone's subscription goes, a finder's next message
    // reaches the laptop alone. The finder's own subscription is no session's and stays.
    const owner = await ownerOfStack(stack);
    const laptopLogin = await call<{ token: string }>('POST', '/user/login', { body: { email: owner.email, password: owner.password } });
    expect(laptopLogin.status).toBe(200);
    const laptopToken = laptopLogin.body.token;
    const { code } = await ownedItemOf(stack, owner.token);
    const phone = stack.push.subscribe();
    const laptop = stack.push.subscribe();
    expect((await call('POST', '/user/push/register', { token: owner.token, body: phone })).status).toBe(204);
    expect((await call('POST', '/user/push/register', { token: laptopToken, body: laptop })).status).toBe(204);
    const first = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your phone' } });
    expect(first.status).toBe(201);
    await stack.push.waitForPushes(phone);
    await stack.push.waitForPushes(laptop);
    const finderBrowser = stack.push.subscribe();
    expect((await call('POST', `/items/${code}/push/register`, { finderToken: first.body.finder_token, body: finderBrowser })).status).toBe(204);

    expect((await call('POST', '/user/update-password', { token: laptopToken, body: { password: `changed-${randomUUID()}` } })).status).toBe(200);
    expect((await call('GET', '/user/me', { token: owner.token })).status).toBe(401);
    const rowsOf = async (endpoint: string) =>
      (await stack.db.query<{ count: number }>(`SELECT count(*)::int AS count FROM "${stack.schemaOf('notifications')}".push_subscriptions WHERE endpoint = $1`, [endpoint])).rows[0].count;
    await expectEventually(async () => expect(await rowsOf(phone.endpoint)).toBe(0));
    expect({ laptop: await rowsOf(laptop.endpoint), finder: await rowsOf(finderBrowser.endpoint) }).toEqual({ laptop: 1, finder: 1 });

    expect((await call('POST', `/items/${code}/messages`, { finderToken: first.body.finder_token, body: { content: 'Where shall we meet?' } })).status).toBe(201);
    await stack.push.waitForPushes(laptop, 2);
    await pushJobsSettled();
    expect({ phone: stack.push.pushesTo(phone).length, laptop: stack.push.pushesTo(laptop).length }).toEqual({ phone: 1, laptop: 2 });
  });
});
