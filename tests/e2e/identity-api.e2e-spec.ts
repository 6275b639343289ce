import { randomBytes, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { HttpErrorBody, User } from '@homing/contracts';
import { expectEventually, freePort, ServiceProcess, testKeys, waitForEvent } from '@homing/testing';
import { startStack, type Stack } from '../support/stack';

interface Answer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

// Identity through the gateway, every service a process: log-in by password and by code, passwords, sessions,
// and what the logs must never hold (RELIABILITY S1–S7 in small sizes).
describe('identity API through the gateway', () => {
  let stack: Stack;
  // Everything secret this suite handles; none of it may appear in any service's log.
  const secrets = new Set<string>();
  const remember = <T extends string>(value: T): T => {
    secrets.add(value);
    return value;
  };
  // Rate limits count per client address: each test speaks from its own, through the trusted proxy (loopback).
  const clientAddress = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

  beforeAll(async () => {
    stack = await startStack({
      env: {
        gateway: { TRUSTED_PROXIES: '127.0.0.1,::1', LOG_LEVEL: 'debug' },
        identity: { LOG_LEVEL: 'debug' },
      },
    });
  });

  afterAll(() => stack?.stop());

  async function call<T = unknown>(method: string, path: string, options: { body?: unknown; token?: string; from?: string; headers?: Record<string, string> } = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { 'x-forwarded-for': options.from ?? clientAddress(), ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${stack.api}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
  }

  /** A user as activation creates one (identity.rpc.ensure-user), who then sets a password by the e-mailed link. */
  async function newUser(password = remember(`pw-${randomUUID()}`)) {
    const email = remember(`owner-${randomUUID()}@example.test`);
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
    const ensured = reply.json<{ userId: string; created: boolean; passwordToken: string; loginToken: string }>();
    expect(ensured.created).toBe(true);
    remember(ensured.passwordToken);
    remember(ensured.loginToken);
    const set = await call<{ token: string }>('POST', '/user/password', { body: { token: ensured.passwordToken, password } });
    expect(set.status).toBe(200);
    return { email, password, userId: ensured.userId, token: remember(set.body.token) };
  }

  const login = (email: string, password: string, from?: string) => call<{ token: string }>('POST', '/user/login', { body: { email, password }, from });
  const me = (token: string) => call<User>('GET', '/user/me', { token });

  it('logs in with e-mail and password, and the token says who the caller is', async () => {
    const user = await newUser();
    const answer = await login(user.email.toUpperCase(), user.password);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const claims = jwt.decode(remember(answer.body.token)) as Record<string, unknown>;
    expect(claims).toMatchObject({ id: user.userId, email: user.email, is_admin: false, iss: 'homing-identity', aud: 'homing' });
    expect((await me(answer.body.token)).body).toEqual({ id: user.userId, email: user.email, language: 'en' });
  });

  it('answers a wrong password, an unknown address and a locked account alike (S2, S3)', async () => {
    const user = await newUser();
    const wrong = await login(user.email, 'not-the-password');
    const unknown = await login(remember(`nobody-${randomUUID()}@example.test`), 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ response_code: 'INVALID_CREDENTIALS', message: expect.any(String) });
    expect(unknown).toMatchObject({ status: wrong.status, body: wrong.body });

    // Ten failures lock the account: the right password is then refused exactly like a wrong one.
    for (let attempt = 0; attempt < 10; attempt += 1) expect((await login(user.email, `wrong-${attempt}`)).status).toBe(401);
    const locked = await login(user.email, user.password);
    expect({ status: locked.status, body: locked.body }).toEqual({ status: wrong.status, body: wrong.body });
  });

  it('limits log-ins per client address, believing X-Forwarded-For only from a trusted proxy (S3)', async () => {
    const user = await newUser();
    const from = clientAddress();
    const answers: number[] = [];
    for (let attempt = 0; attempt < 21; attempt += 1) answers.push((await login(user.email, 'wrong', from)).status);
    expect(answers.slice(0, 20).every((status) => status === 401)).toBe(true);
    expect(answers[20]).toBe(429);
    const limited = await login(user.email, 'wrong', from);
    expect(limited.body).toMatchObject({ response_code: 'RATE_LIMITED' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

    // A gateway that trusts no proxy counts the connection's address, whatever X-Forwarded-For claims.
    const untrusting = new ServiceProcess('gateway', await freePort(), { ...stack.shared, TRUSTED_PROXIES: '' });
    await untrusting.start();
    try {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 21; attempt += 1) {
        const response = await fetch(`http://127.0.0.1:${untrusting.port}/api/v1/user/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': clientAddress() },
          body: JSON.stringify({ email: user.email, password: 'wrong' }),
        });
        statuses.push(response.status);
      }
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await untrusting.stop();
    }
  });

  it('mails a login code, answering alike for unknown addresses, and the code logs in once (S2, S4)', async () => {
    const user = await newUser();
    const requested = waitForEvent(stack.nc, stack.namespace, 'identity.login-code.requested.v1', (event) => event.data.userId === user.userId);
    const known = await call('GET', `/magic-link?email=${encodeURIComponent(user.email)}`);
    const unknown = await call('GET', `/magic-link?email=${encodeURIComponent(remember(`nobody-${randomUUID()}@example.test`))}`);
    expect(known.status).toBe(200);
    expect(unknown).toMatchObject({ status: known.status, body: known.body });
    const code = remember((await requested).data.code);
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/);

    expect((await call('POST', '/magic-link/login', { body: { code: 'ZZZZZZZZ' } })).status).toBe(401);
    // Typed the way a person types it.
    const redeemed = await call<{ token: string }>('POST', '/magic-link/login', { body: { code: `${code.slice(0, 4).toLowerCase()}-${code.slice(4)}` } });
    expect(redeemed.status).toBe(200);
    expect((await me(remember(redeemed.body.token))).body.id).toBe(user.userId);
    const again = await call<HttpErrorBody>('POST', '/magic-link/login', { body: { code } });
    expect(again.status).toBe(401);
  });

  it('lets exactly one of 8 concurrent redemptions of a code log in (S4)', async () => {
    const user = await newUser();
    const requested = waitForEvent(stack.nc, stack.namespace, 'identity.login-code.requested.v1', (event) => event.data.userId === user.userId);
    await call('GET', `/magic-link?email=${encodeURIComponent(user.email)}`);
    const code = remember((await requested).data.code);
    const answers = await Promise.all(Array.from({ length: 8 }, () => call('POST', '/magic-link/login', { body: { code } })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
  });

  it('mails a single-use reset link, never a password; using it logs in and ends every other session (S2, S5)', async () => {
    const user = await newUser();
    const requested = waitForEvent(stack.nc, stack.namespace, 'identity.password-reset.requested.v1', (event) => event.data.userId === user.userId);
    const known = await call('POST', '/user/password-forgot', { body: { email: user.email } });
    const unknown = await call('POST', '/user/password-forgot', { body: { email: remember(`nobody-${randomUUID()}@example.test`) } });
    expect(known.status).toBe(200);
    expect(unknown).toMatchObject({ status: known.status, body: known.body });
    const token = remember((await requested).data.token);

    const newPassword = remember(`new-${randomUUID()}`);
    const reset = await call<{ token: string }>('POST', '/user/password', { body: { token, password: newPassword } });
    expect(reset.status).toBe(200);
    expect((await me(remember(reset.body.token))).status).toBe(200);
    // The session from before the reset is over.
    expect((await me(user.token)).status).toBe(401);
    expect((await login(user.email, user.password)).status).toBe(401);
    expect((await login(user.email, newPassword)).status).toBe(200);
    const reused = await call<HttpErrorBody>('POST', '/user/password', { body: { token, password: newPassword } });
    expect(reused.body.response_code).toBe('INVALID_PASSWORD_TOKEN');
    const unknownToken = await call<HttpErrorBody>('POST', '/user/password', { body: { token: 'x'.repeat(22), password: newPassword } });
    expect(unknownToken.body.response_code).toBe('INVALID_PASSWORD_TOKEN');
  });

  it('refreshes a token by rotation, and logging out ends the session at once (S6)', async () => {
    const user = await newUser();
    const refreshed = await call<{ token: string }>('POST', '/auth/refresh-token', { token: user.token });
    expect(refreshed.status).toBe(200);
    const next = remember(refreshed.body.token);
    expect(next).not.toBe(user.token);
    expect((await me(next)).status).toBe(200);
    expect((await call('POST', '/auth/refresh-token')).status).toBe(401);

    expect((await call('POST', '/auth/logout', { token: next })).status).toBe(200);
    expect((await me(next)).status).toBe(401);
    expect((await call('POST', '/auth/refresh-token', { token: next })).status).toBe(401);
  });

  it('changes the password of the logged-in user and ends their other sessions', async () => {
    const user = await newUser();
    const other = remember((await login(user.email, user.password)).body.token);
    const newPassword = remember(`changed-${randomUUID()}`);
    expect((await call('POST', '/user/update-password', { token: user.token, body: { password: newPassword } })).status).toBe(200);
    expect((await me(user.token)).status).toBe(200);
    expect((await me(other)).status).toBe(401);
    expect((await login(user.email, newPassword)).status).toBe(200);
    const short = await call<HttpErrorBody>('POST', '/user/update-password', { token: user.token, body: { password: 'short' } });
    expect(short).toMatchObject({ status: 422, body: { response_code: 'VALIDATION_ERROR', validation: { password: 'min=8' } } });
  });

  it('sets the language, and shows other users by id only', async () => {
    const user = await newUser();
    expect((await call<User>('POST', '/user/language', { token: user.token, body: { language: 'nl' } })).body.language).toBe('nl');
    expect((await me(user.token)).body.language).toBe('nl');
    const italian = await call<HttpErrorBody>('POST', '/user/language', { token: user.token, body: { language: 'it' } });
    expect(italian).toMatchObject({ status: 422, body: { validation: { language: 'invalid' } } });

    const other = randomUUID();
    const many = await call('GET', `/user/many?ids=${user.userId},${other}`, { token: user.token });
    expect(many.body).toEqual([{ id: user.userId, email: user.email, language: 'nl' }, { id: other }]);
    expect((await call('GET', '/user/many?ids=not-a-uuid', { token: user.token })).status).toBe(422);
  });

  it('refuses self-registration while it is off', async () => {
    const answer = await call<HttpErrorBody>('POST', '/user', { body: { email: remember(`new-${randomUUID()}@example.test`), password: remember('a-good-password') } });
    expect(answer).toMatchObject({ status: 403, body: { response_code: 'REGISTRATION_DISABLED' } });
  });

  it('refuses forged and expired tokens (S7)', async () => {
    const user = await newUser();
    const claims = jwt.decode(user.token) as Record<string, unknown>;
    const forged = [
      jwt.sign({ ...claims, is_admin: true }, 'secret', { algorithm: 'HS256' }),
      jwt.sign(claims, testKeys().JWT_PUBLIC_KEY.replace(/\n/g, ''), { algorithm: 'HS256' }),
      `${Buffer.from('{"alg":"none"}').toString('base64url')}.${user.token.split('.')[1]}.`,
      jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 3600 }, testKeys().JWT_PRIVATE_KEY, { algorithm: 'ES256' }),
      jwt.sign({ ...claims, iss: 'someone-else' }, testKeys().JWT_PRIVATE_KEY, { algorithm: 'ES256' }),
    ];
    for (const token of forged) expect((await me(token)).status).toBe(401);
  });

  it('writes no e-mail address, password, code, token or link into any log line', async () => {
    expect(secrets.size).toBeGreaterThan(20);
    await expectEventually(() => expect(stack.services.get('gateway')?.logs.length).toBeGreaterThan(0));
    for (const [name, service] of stack.services) {
      const leaked = [...secrets].filter((secret) => service.logs.includes(secret) || service.logs.includes(encodeURIComponent(secret)));
      expect({ name, leaked }).toEqual({ name, leaked: [] });
    }
  });
});
