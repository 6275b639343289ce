import { randomUUID } from 'node:crypto';
import type { CreateMessageResponse, FinderTokenResponse, HttpErrorBody, PublicItem, UserExport } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { apiExchange, ownerOfStack, type ApiCaller } from '../support/api';
import { startStack, type Stack } from '../support/stack';

// An owner's data export through the gateway, every service a process: what is in it, and what never is (secrets,
// finders' addresses, other people's items and messages).
describe('an owner’s data export', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });

  afterAll(() => stack?.stop());

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiExchange<T>(stack, method, path, options);

  /** An owner as activation makes one, who then sets a password: a real account with a real session. */
  const newOwner = () => ownerOfStack(stack);

  /** A new item of the owner's, once messaging knows whose it is (finders can write then). */
  async function newItem(token: string, name: string): Promise<string> {
    const created = await call<PublicItem>('POST', '/items', { token, body: { name } });
    expect(created.status).toBe(201);
    await expectEventually(async () => expect((await call('GET', `/user/items/${created.body.code}/unread-count`, { token })).status).toBe(200));
    return created.body.code;
  }

  const write = (code: string, content: string, finderToken?: string) => call<CreateMessageResponse & HttpErrorBody>('POST', `/items/${code}/messages`, { finderToken, body: { content } });
  const exportOf = (token?: string) => call<UserExport & HttpErrorBody>('GET', '/user/export', { token });

  it('holds the account, its sessions without secrets, each item and the surviving messages, and nothing of anyone else', async () => {
    const owner = await newOwner();
    const umbrella = await newItem(owner.token, 'Umbrella');
    const bike = await newItem(owner.token, 'Bike');

    // Finder one leaves an address and writes about the umbrella; the owner answers.
    const finderEmail = `finder-${randomUUID()}@example.test`;
    const finderOne = (await call<FinderTokenResponse>('POST', `/items/${umbrella}/set-finder`, { body: { email: finderEmail } })).body.finder_token;
    expect((await write(umbrella, 'Umbrella found at the bakery', finderOne)).status).toBe(201);
    expect((await call('POST', `/items/${umbrella}/messages`, { token: owner.token, body: { content: 'Thank you, I will pick it up' } })).status).toBe(201);
    // Finder two writes about the bike; the owner resets its thread, and a later finder writes again.
    const finderTwo = (await write(bike, 'Bike by the canal, before the reset')).body.finder_token;
    expect(finderTwo).toEqual(expect.any(String));
    expect((await call('POST', `/user/items/${bike}/reset`, { token: owner.token })).status).toBe(204);
    expect((await write(bike, 'Bike at the station, after the reset')).status).toBe(201);

    // Another owner's item and message: none of it may show up.
    const other = await newOwner();
    const otherItem = await newItem(other.token, 'Someone else’s wallet');
    expect((await write(otherItem, 'Wallet of the other owner')).status).toBe(201);

    const answer = await exportOf(owner.token);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const today = new Date().toISOString().slice(0, 10);
    expect(answer.headers.get('content-disposition')).toBe(`attachment; filename="homing-export-${today}.json"`);

    const file = answer.body;
    expect(Date.parse(file.exported_at)).not.toBeNaN();
    expect(Object.keys(file.about)).toEqual(expect.arrayContaining(['account', 'sessions', 'items', 'conversations', 'push_subscriptions', 'notifications_sent']));
    expect(file.account).toEqual({ email: owner.email, language: 'nl', createdAt: expect.any(String), hasPassword: true, isAdmin: false });
    expect(file.sessions.length).toBeGreaterThanOrEqual(1);
    for (const session of file.sessions) expect(Object.keys(session).sort()).toEqual(['createdAt', 'expiresAt', 'lastUsedAt', 'passkey', 'revokedAt']);

    expect(file.items.map((item) => [item.code, item.name]).sort()).toEqual([[umbrella, 'Umbrella'], [bike, 'Bike']].sort());
    const said = (code: string) => file.conversations.filter((conversation) => conversation.itemCode === code).flatMap((conversation) => conversation.messages.map((message) => [message.author, message.content]));
    expect(said(umbrella)).toEqual([
      ['finder', 'Umbrella found at the bakery'],
      ['owner', 'Thank you, I will pick it up'],
    ]);
    expect(said(bike)).toEqual([['finder', 'Bike at the station, after the reset']]);

    // Nothing secret, nothing of the finders, nothing of the other owner.
    const text = JSON.stringify(file);
    const conversationIds = (await stack.db.query<{ id: string }>(`SELECT id FROM "${stack.schemaOf('messaging')}".conversations WHERE item_code = ANY($1)`, [[umbrella, bike].map((code) => code.replace(/-/g, ''))])).rows.map((row) => row.id);
    for (const absent of [finderEmail, finderOne, finderTwo, owner.token, owner.password, other.email, other.userId, otherItem, 'Wallet of the other owner', 'before the reset', ...conversationIds]) {
      expect(text).not.toContain(absent);
    }
    const sessionRows = await stack.db.query<{ id: string; current_jti: string }>(`SELECT id, current_jti FROM "${stack.schemaOf('identity')}".sessions WHERE user_id = $1`, [owner.userId]);
    for (const row of sessionRows.rows) {
      expect(text).not.toContain(row.id);
      expect(text).not.toContain(row.current_jti);
    }
    // Nothing of the file is logged by any service.
    for (const [name, service] of stack.services) {
      for (const content of [owner.email, 'Umbrella found at the bakery', 'Thank you, I will pick it up']) expect(`${name}: ${service.logs.includes(content)}`).toBe(`${name}: false`);
    }
    // The other owner's own export has their item and message, and not this owner's.
    const theirs = await exportOf(other.token);
    expect(theirs.body.items.map((item) => item.code)).toEqual([otherItem]);
    expect(JSON.stringify(theirs.body)).not.toContain('Umbrella');
  });

  it('names the items shared with the user (co-owned: which, its name, since when), and not the owner’s own data of them', async () => {
    const owner = await newOwner();
    const coOwner = await newOwner();
    const shared = await newItem(owner.token, 'Family car keys');
    // A co-owner, as an accepted invitation adds one.
    await stack.db.query(`INSERT INTO "${stack.schemaOf('items')}".item_co_owners (item_code, user_id) VALUES ($1, $2)`, [shared.replace(/-/g, ''), coOwner.userId]);
    const file = (await exportOf(coOwner.token)).body;
    expect(file.shared_items).toEqual([{ code: shared, name: 'Family car keys', addedAt: expect.any(String) }]);
    expect(file.items).toEqual([]);
    expect(file.about.shared_items).toEqual(expect.any(String));
    expect((await exportOf(owner.token)).body.shared_items).toEqual([]);
  });

  it('shows a push subscription by its origin and last 8 characters only', async () => {
    const owner = await newOwner();
    const subscription = stack.push.subscribe();
    const { endpoint } = subscription;
    expect((await call('POST', '/user/push/register', { token: owner.token, body: subscription })).status).toBe(204);
    const file = (await exportOf(owner.token)).body;
    expect(file.push_subscriptions).toEqual([{ endpoint: `${new URL(endpoint).origin}/…${endpoint.slice(-8)}`, createdAt: expect.any(String) }]);
    expect(JSON.stringify(file)).not.toContain(endpoint);
  });

  it('answers 401 without a token', async () => {
    const answer = await exportOf();
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ response_code: expect.any(String), message: expect.any(String) });
  });

  it('answers 503 rather than a partial file while a service is down', async () => {
    const owner = await newOwner();
    const notifications = stack.services.get('notifications');
    await notifications?.stop();
    try {
      const answer = await exportOf(owner.token);
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ response_code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
      expect(answer.headers.get('retry-after')).toEqual(expect.any(String));
    } finally {
      await notifications?.start();
    }
    expect((await exportOf(owner.token)).status).toBe(200);
  });
});
