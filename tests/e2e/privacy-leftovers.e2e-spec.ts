import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import type { CreateMessageResponse, HandoverCode, HttpErrorBody, InvitationAccepted, PublicItem, UserExport } from '@homing/contracts';
import { expectEventually, testInfra, waitForEvent } from '@homing/testing';
import { apiExchange, ownerOfStack, type ApiCaller } from '../support/api';
import { startStack, type Stack } from '../support/stack';

// docs/privacy.md against what is left: a push subscription's delivery records once it is gone, an erased owner's
// hand-over key while items is behind, a transferred item's key, and invitation links' tokens in request lines. Each
// was found left by a review (2026-12-03): records nothing found any more (not exported, never erased), a key kept
// in messaging's tombstone, a key the previous owner could work out the new owner's codes from, and tokens logged.
describe('what the data map promises is gone, is gone', () => {
  let stack: Stack;
  let redis: IORedis;

  beforeAll(async () => {
    const secondPass = { ERASURE_SECOND_PASS_SECONDS: '5' };
    stack = await startStack({ env: { items: secondPass, messaging: secondPass, notifications: secondPass } });
    redis = new IORedis(testInfra().redisUrl);
  });

  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
  });

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiExchange<T>(stack, method, path, options);
  const notifications = () => stack.schemaOf('notifications');

  async function newItem(token: string, name: string): Promise<string> {
    const created = await call<PublicItem>('POST', '/items', { token, body: { name } });
    expect(created.status).toBe(201);
    await expectEventually(async () => expect((await call('GET', `/user/items/${created.body.code}/unread-count`, { token })).status).toBe(200));
    return created.body.code;
  }

  const erasuresDone = async () =>
    (await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${notifications()}".processed_events WHERE consumer LIKE '%user-deleted%'`)).rows[0].n;

  async function eraseAndWait(owner: { token: string; password: string; userId: string }): Promise<void> {
    const before = await erasuresDone();
    const deleted = waitForEvent(stack.nc, stack.namespace, 'identity.user.deleted.v1', (event) => (event.data as { userId: string }).userId === owner.userId);
    const answer = await call<HttpErrorBody>('DELETE', '/user', { token: owner.token, body: { password: owner.password } });
    expect(answer.status).toBe(200);
    await deleted;
    // Both passes of notifications' erasure have run (their ledger rows name the consumer).
    await expectEventually(
      async () => {
        expect(await erasuresDone()).toBeGreaterThanOrEqual(before + 2);
      },
      { timeoutMs: 60_000 },
    );
  }

  /** Every substring of `token` of `length` characters. */
  const fragments = (token: string, length: number) => Array.from({ length: token.length - length + 1 }, (_, index) => token.slice(index, index + length));

  const handoverKey = async (code: string) =>
    (
      await stack.db.query<{ owner_user_id: string | null; deleted_at: Date | null; key: Buffer | null }>(
        `SELECT owner_user_id, deleted_at, handover_secret AS key FROM "${stack.schemaOf('messaging')}".item_owners WHERE item_code = $1`,
        [code.replace(/-/g, '')],
      )
    ).rows[0];

  it('deletes a push subscription’s delivery records with it, and the rest with the account', async () => {
    const owner = await ownerOfStack(stack);
    const code = await newItem(owner.token, 'Backpack');
    const browser = stack.push.subscribe();
    expect((await call('POST', '/user/push/register', { token: owner.token, body: browser })).status).toBe(204);
    const { rows: subs } = await stack.db.query<{ id: string }>(`SELECT id FROM "${notifications()}".push_subscriptions WHERE endpoint = $1`, [browser.endpoint]);
    const subscriptionId = subs[0].id;

    // A finder writes: the owner's browser gets a push, recorded as a delivery to that subscription.
    expect((await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your backpack' } })).status).toBe(201);
    await stack.push.waitForPushes(browser);
    const pushRows = async () =>
      (await stack.db.query<{ job_id: string }>(`SELECT job_id FROM "${notifications()}".deliveries WHERE right(job_id, 37) = $1`, [`_${subscriptionId}`])).rows;
    await expectEventually(async () => expect(await pushRows()).toHaveLength(1));
    expect((await call<UserExport>('GET', '/user/export', { token: owner.token })).body.notifications_sent.filter((sent) => sent.channel === 'push')).toHaveLength(1);

    // The owner turns push off in that browser: its records go with it (nothing would find them any more).
    expect((await call('POST', '/user/push/unregister', { token: owner.token, body: { endpoint: browser.endpoint } })).status).toBe(204);
    expect(await pushRows()).toEqual([]);
    const exported = await call<UserExport>('GET', '/user/export', { token: owner.token });
    expect(exported.body.notifications_sent.filter((sent) => sent.channel === 'push')).toEqual([]);

    await eraseAndWait(owner);
    const { rows } = await stack.db.query(`SELECT job_id FROM "${notifications()}".deliveries WHERE right(job_id, 37) = $1`, [`_${owner.userId}`]);
    expect(rows).toEqual([]);
  });

  it('erases an owner’s hand-over key with their account while items is behind', async () => {
    const owner = await ownerOfStack(stack);
    const code = await newItem(owner.token, 'Bicycle');
    expect((await call('PATCH', `/user/items/${code}`, { token: owner.token, body: { lost: true } })).status).toBe(200);
    expect((await call<HandoverCode>('GET', `/user/items/${code}/handover-code`, { token: owner.token })).status).toBe(200);
    expect((await handoverKey(code)).key).not.toBeNull();

    // Items is behind (down, restarting, lagging) when the account goes; messaging erases its part on its own.
    const items = stack.services.get('items');
    await items?.stop();
    try {
      const deleted = waitForEvent(stack.nc, stack.namespace, 'identity.user.deleted.v1', (event) => (event.data as { userId: string }).userId === owner.userId);
      expect((await call<HttpErrorBody>('DELETE', '/user', { token: owner.token, body: { password: owner.password } })).status).toBe(200);
      await deleted;
      await expectEventually(async () => expect(await handoverKey(code)).toEqual({ owner_user_id: null, deleted_at: expect.any(Date), key: null }), { timeoutMs: 30_000 });
    } finally {
      await items?.start();
    }
  });

  it('gives a transferred item a new hand-over key: the previous owner’s codes are not the new owner’s', async () => {
    const previous = await ownerOfStack(stack);
    const code = await newItem(previous.token, 'Scooter');
    expect((await call('PATCH', `/user/items/${code}`, { token: previous.token, body: { lost: true } })).status).toBe(200);
    expect((await call<HandoverCode>('GET', `/user/items/${code}/handover-code`, { token: previous.token })).status).toBe(200);
    const before = (await handoverKey(code)).key as Buffer;
    expect(before).not.toBeNull();

    const next = await ownerOfStack(stack);
    expect((await call('POST', `/user/items/${code}/transfer`, { token: previous.token, body: { email: next.email } })).status).toBe(201);
    const mail = await expectEventually(async () => {
      const found = stack.mail.mailsTo(next.email).find((candidate) => /\/invite\/[A-Za-z0-9_-]{22}/.test(candidate.text));
      expect(found).toBeDefined();
      return found!;
    });
    const token = (mail.text.match(/\/invite\/([A-Za-z0-9_-]{22})/) as RegExpMatchArray)[1];
    expect((await call<InvitationAccepted>('POST', `/invitations/${token}/accept`, { token: next.token })).status).toBe(200);
    await expectEventually(async () => expect((await handoverKey(code)).key).toBeNull());
    // The new owner's codes come from a key of its own.
    await expectEventually(async () => expect((await call<HandoverCode>('GET', `/user/items/${code}/handover-code`, { token: next.token })).status).toBe(200));
    const after = (await handoverKey(code)).key as Buffer;
    expect(after.equals(before)).toBe(false);
  });

  it('writes no invitation link’s token into a request line, however the request was answered', async () => {
    const owner = await ownerOfStack(stack);
    const created = await call<PublicItem>('POST', '/items', { token: owner.token, body: { name: 'Bike' } });
    expect(created.status).toBe(201);
    const code = created.body.code;
    await expectEventually(async () => expect((await call('GET', `/user/items/${code}/unread-count`, { token: owner.token })).status).toBe(200));

    const tokens: string[] = [];
    for (let index = 0; index < 6; index++) {
      const email = `invitee-${randomUUID()}@example.test`;
      expect((await call('POST', `/user/items/${code}/co-owners`, { token: owner.token, body: { email } })).status).toBe(201);
      const mail = await expectEventually(async () => {
        const found = stack.mail.mailsTo(email).find((candidate) => /\/invite\/[A-Za-z0-9_-]{22}/.test(candidate.text));
        expect(found).toBeDefined();
        return found!;
      });
      const token = (mail.text.match(/\/invite\/([A-Za-z0-9_-]{22})/) as RegExpMatchArray)[1];
      tokens.push(token);
    }

    // Each invitee's page asks what its link offers; past the route's limit (20 a minute from one address, as behind a
    // shared NAT) the answer is 429, logged at warn with the request's path. Every link stays valid.
    let answers: number[] = [];
    for (let index = 0; index < 20; index++) answers.push((await call('GET', `/invitations/${tokens[0]}`)).status);
    for (const token of tokens) answers.push((await call('GET', `/invitations/${token}`)).status);
    answers = [...new Set(answers)];
    expect(answers).toContain(429);
    const { rows } = await stack.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${stack.schemaOf('items')}".item_invitations WHERE item_code = $1 AND accepted_at IS NULL AND cancelled_at IS NULL AND expires_at > now()`,
      [code.replace(/-/g, '')],
    );
    expect(rows[0].n).toBe(tokens.length);

    const gatewayLog = stack.services.get('gateway')?.logs ?? '';
    const lines = gatewayLog.split('\n').filter((line) => line.includes('/invitations/'));
    expect(lines.length).toBeGreaterThan(0);
    const leaked = tokens.map((token) => ({ token, fragmentsInLog: fragments(token, 8).filter((fragment) => gatewayLog.includes(fragment)) })).filter((entry) => entry.fragmentsInLog.length > 0);
    expect(leaked).toEqual([]);
  });
});
