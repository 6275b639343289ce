import { randomUUID } from 'node:crypto';
import type { ClaimResponse, HttpErrorBody, PublicItem, User } from '@homing/contracts';
import { expectEventually, runServiceCommand, waitForEvent } from '@homing/testing';
import { startStack, type Stack } from '../support/stack';

// Activation of a tag (POST /claim) with the whole stack: items asks identity for the user, then claims the tag.
describe('claiming a tag through the gateway', () => {
  let stack: Stack;
  let tags: string[];
  const unclaimed = () => {
    const tag = tags.shift();
    if (!tag) throw new Error('the suite minted too few tags');
    return tag;
  };

  beforeAll(async () => {
    stack = await startStack({
      // Claims count against the log-in limit per client address; this suite speaks through the trusted proxy.
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } },
      beforeStart: async ({ envOf }) => {
        tags = (await runServiceCommand('items', ['seed-tags', '--count', '12'], envOf('items'))).trim().split('\n');
      },
    });
  });

  afterAll(() => stack?.stop());

  async function call<T>(method: string, path: string, options: { body?: unknown; token?: string } = {}): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { 'x-forwarded-for': `10.1.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${stack.api}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
  const claim = (code: string, email?: string, token?: string) => call<ClaimResponse & HttpErrorBody>('POST', '/claim', { body: { code, ...(email ? { email } : {}) }, token });
  const ownerOf = async (code: string) => {
    const { rows } = await stack.db.query(`SELECT owner_user_id FROM "${stack.schemaOf('items')}".items WHERE code = $1`, [code.replace(/-/g, '')]);
    return rows[0]?.owner_user_id as string | null | undefined;
  };

  it('makes a new user of an unknown address, logged in at once, with a link to set a password', async () => {
    const code = unclaimed();
    const email = `finder-${randomUUID()}@example.test`;
    const registered = waitForEvent(stack.nc, stack.namespace, 'identity.user.registered.v1');
    const claimed = waitForEvent(stack.nc, stack.namespace, 'items.item.claimed.v1', (event) => event.data.code === code.replace(/-/g, ''));
    const answer = await claim(code.toLowerCase(), email);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ response_code: 'NEW_USER_REGISTERED', password_token: expect.any(String), login_token: expect.any(String) });

    const me = await call<User>('GET', '/user/me', { token: answer.body.response_code === 'NEW_USER_REGISTERED' ? answer.body.login_token : '' });
    expect(me.body.email).toBe(email);
    expect((await registered).data).toEqual({ userId: me.body.id, passwordToken: expect.any(String) });
    expect(await claimed).toMatchObject({ aggregateId: code.replace(/-/g, ''), version: 1, data: { ownerUserId: me.body.id } });
    expect(await ownerOf(code)).toBe(me.body.id);
    // Messaging learns the owner from the event.
    await expectEventually(async () => {
      const { rows } = await stack.db.query(`SELECT owner_user_id FROM "${stack.schemaOf('messaging')}".item_owners WHERE item_code = $1`, [code.replace(/-/g, '')]);
      expect(rows[0]?.owner_user_id).toBe(me.body.id);
    });
    // The password link from the answer works once.
    const set = await call<{ token: string }>('POST', '/user/password', { body: { token: answer.body.response_code === 'NEW_USER_REGISTERED' ? answer.body.password_token : '', password: 'a long new password' } });
    expect(set.status).toBe(200);
  });

  it('gives the tag to the existing user of an address, and to a logged-in caller whatever address the body names', async () => {
    const first = await claim(unclaimed(), `owner-${randomUUID()}@example.test`);
    expect(first.body.response_code).toBe('NEW_USER_REGISTERED');
    const token = first.body.response_code === 'NEW_USER_REGISTERED' ? first.body.login_token : '';
    const owner = (await call<User>('GET', '/user/me', { token })).body;

    const second = unclaimed();
    expect((await claim(second, owner.email.toUpperCase())).body).toEqual({ response_code: 'ITEM_CLAIMED_SUCCESFULLY' });
    expect(await ownerOf(second)).toBe(owner.id);

    const third = unclaimed();
    expect((await claim(third, `someone-else-${randomUUID()}@example.test`, token)).body).toEqual({ response_code: 'ITEM_CLAIMED_SUCCESFULLY' });
    expect(await ownerOf(third)).toBe(owner.id);
    const item = await call<PublicItem>('GET', `/items/${third}`, { token });
    expect(item.body).toMatchObject({ activated: true, is_owner: true, user_id: owner.id });
    // Nobody else learns who owns it.
    expect((await call<PublicItem>('GET', `/items/${third}`)).body).not.toHaveProperty('user_id');
  });

  it('answers ALREADY_CLAIMED, 404 for unknown and malformed codes, and VALIDATION_ERROR for a missing or bad address', async () => {
    const code = unclaimed();
    expect((await claim(code, `a-${randomUUID()}@example.test`)).status).toBe(200);
    const again = await claim(code, `b-${randomUUID()}@example.test`);
    expect(again).toMatchObject({ status: 409, body: { response_code: 'ALREADY_CLAIMED' } });
    expect(await claim('ZZZZ-ZZZZ-ZZZZ-ZZZZ', 'x@example.test')).toMatchObject({ status: 404, body: { response_code: 'ITEM_NOT_FOUND' } });
    expect(await claim('not a code', 'x@example.test')).toMatchObject({ status: 404, body: { response_code: 'ITEM_NOT_FOUND' } });
    expect(await claim(unclaimed())).toMatchObject({ status: 422, body: { response_code: 'VALIDATION_ERROR', validation: { email: 'required' } } });
    expect(await claim(unclaimed(), 'not-an-address')).toMatchObject({ status: 422, body: { response_code: 'VALIDATION_ERROR', validation: { email: 'email' } } });
  });

  it('lets exactly one of several concurrent claims of a tag win, and makes an account of the winner’s address only', async () => {
    const code = unclaimed();
    const emails = Array.from({ length: 6 }, () => `racer-${randomUUID()}@example.test`);
    const answers = await Promise.all(emails.map((email) => claim(code, email)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = answers.find((answer) => answer.status === 200);
    const me = await call<User>('GET', '/user/me', { token: winner?.body.response_code === 'NEW_USER_REGISTERED' ? winner.body.login_token : '' });
    expect(await ownerOf(code)).toBe(me.body.id);
    // A loser gets no account, hence no welcome e-mail (docs/decisions.md: a used code creates none).
    const { rows } = await stack.db.query(`SELECT email FROM "${stack.schemaOf('identity')}".users WHERE email = ANY($1)`, [emails]);
    expect(rows.map((row: { email: string }) => row.email)).toEqual([me.body.email]);
  });

  it('changes nothing when identity cannot answer, and claims once it is back', async () => {
    const code = unclaimed();
    const identity = stack.services.get('identity');
    await identity?.stop();
    try {
      const answer = await claim(code, `patient-${randomUUID()}@example.test`);
      expect(answer.status).toBe(503);
      expect(await ownerOf(code)).toBeNull();
    } finally {
      await identity?.start();
    }
    expect((await claim(code, `patient-${randomUUID()}@example.test`)).status).toBe(200);
  });
});
