import { randomBytes, randomUUID } from 'node:crypto';
import type { ClaimResponse } from '@homing/contracts';
import { expectEventually, runServiceCommand } from '@homing/testing';
import { startStack, type Stack } from '../support/stack';

interface Answer<T = unknown> {
  status: number;
  body: T;
  retryAfter: string | null;
}

// E-mail budgets per address and per kind (ARCHITECTURE §6), answered 429 with Retry-After for any address, and the
// spec's `{name, reward}` item body with rewards off.
describe('mail budgets and the spec’s item body', () => {
  let stack: Stack;
  let tags: string[];

  beforeAll(async () => {
    stack = await startStack({
      env: {
        gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' },
        items: { REWARDS_ENABLED: 'false' },
        notifications: { NOTIFICATIONS_ROLE: 'all' },
      },
      beforeStart: async ({ envOf }) => {
        tags = (await runServiceCommand('items', ['seed-tags', '--count', '1'], envOf('items'))).trim().split('\n');
      },
    });
  });

  afterAll(() => stack?.stop());

  async function call<T = unknown>(method: string, path: string, options: { body?: unknown; token?: string } = {}): Promise<Answer<T>> {
    // Each call from its own client address (through the trusted proxy): the budgets are per e-mail address, not per
    // client, and the per-client limits stay out of the way.
    const headers: Record<string, string> = { 'x-forwarded-for': `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${stack.api}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, retryAfter: response.headers.get('retry-after') };
  }
  const askCode = (email: string) => call('GET', `/magic-link?email=${encodeURIComponent(email)}`);
  const askReset = (email: string) => call('POST', '/user/password-forgot', { body: { email } });

  function expectMail(address: string, subject: string) {
    return expectEventually(
      () => {
        const mail = stack.mail.mailsTo(address).find((candidate) => candidate.subject === subject);
        if (!mail) throw new Error(`no "${subject}" among ${stack.mail.mailsTo(address).map((candidate) => `"${candidate.subject}"`).join(', ') || 'no e-mails'}`);
        return mail;
      },
      { timeoutMs: 30_000 },
    );
  }

  it('accepts `{name, reward: 0}` with rewards off, and still refuses a positive reward', async () => {
    const email = `owner-${randomUUID()}@example.test`;
    const claimed = await call<ClaimResponse>('POST', '/claim', { body: { code: tags[0], email } });
    expect(claimed.body.response_code).toBe('NEW_USER_REGISTERED');
    const token = claimed.body.response_code === 'NEW_USER_REGISTERED' ? claimed.body.login_token : '';
    const path = `/user/items/${encodeURIComponent(tags[0])}`;
    // Items learns of the claim at once, but the gateway's view of the owner may lag by an event: ask until it is theirs.
    await expectEventually(async () => expect((await call('GET', path, { token })).status).toBe(200), { timeoutMs: 10_000 });

    const named = await call<{ name: string }>('PATCH', path, { token, body: { name: 'Keys', reward: 0 } });
    expect({ status: named.status, name: named.body.name }).toEqual({ status: 200, name: 'Keys' });
    expect(named.body).not.toHaveProperty('reward');

    const rewarded = await call<{ validation?: Record<string, string> }>('PATCH', path, { token, body: { name: 'Keys', reward: 500 } });
    expect({ status: rewarded.status, validation: rewarded.body.validation }).toEqual({ status: 422, validation: { reward: 'invalid' } });
  });

  it('sends a login code and then a reset link to one address, each from its own budget', async () => {
    const email = `owner-${randomUUID()}@example.test`;
    await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });

    expect((await askCode(email)).status).toBe(200);
    expect((await askReset(email)).status).toBe(200);
    await expectMail(email, 'Your Homing login code');
    await expectMail(email, 'Reset your Homing password');
  });

  it('answers a second login code within the minute 429 with Retry-After, the same for an address without an account', async () => {
    const known = `owner-${randomUUID()}@example.test`;
    await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email: known, language: 'en' }), { timeout: 5000 });
    const unknown = `nobody-${randomUUID()}@example.test`;

    const shape = (answer: Answer) => ({ status: answer.status, body: answer.body, retryAfter: answer.retryAfter !== null });
    const [knownFirst, unknownFirst] = [await askCode(known), await askCode(unknown)];
    expect(shape(unknownFirst)).toEqual(shape(knownFirst));
    expect(knownFirst.status).toBe(200);

    // A reset link in between spends nothing of the login codes' budget.
    expect((await askReset(known)).status).toBe(200);

    const [knownSecond, unknownSecond] = [await askCode(known), await askCode(unknown)];
    expect(knownSecond.status).toBe(429);
    expect(knownSecond.body).toMatchObject({ response_code: 'RATE_LIMITED' });
    const seconds = Number(knownSecond.retryAfter);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(shape(unknownSecond)).toEqual(shape(knownSecond));
    // The address is compared as identity compares it: case and spaces make no new budget.
    expect((await askCode(` ${known.toUpperCase()} `)).status).toBe(429);

    // One code reached the known address, however many were asked for.
    await expectMail(known, 'Your Homing login code');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(stack.mail.mailsTo(known).filter((mail) => mail.subject === 'Your Homing login code')).toHaveLength(1);
  });
});
