import type { CreateMessageResponse, HttpErrorBody, Passkey, PasskeyCreationOptions, PasskeyList, PasskeyRequestOptions, TokenResponse } from '@homing/contracts';
import { expectEventually, SoftAuthenticator } from '@homing/testing';
import { apiExchange, ownedItem, ownerOfStack, type ApiCaller } from '../support/api';
import { startStack, type Stack } from '../support/stack';

// Passkeys through the gateway, every service a process, with a software authenticator on the stack's PUBLIC_URL:
// an owner adds one, logs in with it, names it and deletes it, and is e-mailed of each change; the routes' refusals
// answer in the HTTP contract's format.
describe('passkeys through the gateway', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiExchange<T>(stack, method, path, options);

  /** An owner who just chose a password (a fresh log-in). */
  const newOwner = () => ownerOfStack(stack);

  async function addPasskey(token: string, authenticator: SoftAuthenticator): Promise<Passkey> {
    const options = await call<PasskeyCreationOptions>('POST', '/user/passkeys/options', { token });
    expect(options.status).toBe(200);
    const added = await call<Passkey>('POST', '/user/passkeys', { token, body: { response: authenticator.register(options.body, { origin: stack.publicUrl }) } });
    expect(added.status).toBe(201);
    return added.body;
  }

  async function logInWith(authenticator: SoftAuthenticator) {
    const options = await call<PasskeyRequestOptions>('POST', '/user/login/passkey-options');
    expect(options.status).toBe(200);
    return call<TokenResponse & HttpErrorBody>('POST', '/user/login/passkey', { body: { response: authenticator.authenticate(options.body, { origin: stack.publicUrl }) } });
  }

  it('adds a passkey, logs in with it as with a password, renames and deletes it, e-mailing the owner each change', async () => {
    const owner = await newOwner();
    const authenticator = new SoftAuthenticator({ aaguid: 'bada5566-a7aa-401f-bd96-45619a55120d' });
    const passkey = await addPasskey(owner.token, authenticator);
    expect(passkey).toMatchObject({ name: null, provider: '1Password', synced: false, last_used_at: null });
    const [added] = await stack.mail.waitForMails(owner.email, 2).then((mails) => mails.filter((mail) => mail.subject.includes('toegangssleutel')));
    expect(added.subject).toBe('Er is een toegangssleutel toegevoegd aan je Homing-account');

    const loggedIn = await logInWith(authenticator);
    expect(loggedIn.status).toBe(200);
    const me = await call<{ email: string }>('GET', '/user/me', { token: loggedIn.body.token });
    expect(me).toMatchObject({ status: 200, body: { email: owner.email } });

    const renamed = await call<Passkey>('PATCH', `/user/passkeys/${passkey.id}`, { token: loggedIn.body.token, body: { name: 'Laptop' } });
    expect(renamed).toMatchObject({ status: 200, body: { id: passkey.id, name: 'Laptop' } });
    const listed = await call<PasskeyList>('GET', '/user/passkeys', { token: owner.token });
    expect(listed.body.passkeys).toEqual([{ ...passkey, name: 'Laptop', last_used_at: expect.any(String) }]);

    expect((await call('DELETE', `/user/passkeys/${passkey.id}`, { token: owner.token })).status).toBe(204);
    const mails = await stack.mail.waitForMails(owner.email, 3);
    expect(mails.map((mail) => mail.subject)).toContain('Er is een toegangssleutel verwijderd uit je Homing-account');
    expect(await logInWith(authenticator)).toMatchObject({ status: 401, body: { response_code: 'INVALID_CREDENTIALS', message: 'Invalid login credentials.' } });
    expect((await call<PasskeyList>('GET', '/user/passkeys', { token: owner.token })).body).toEqual({ passkeys: [] });
  });

  it('stops pushing to a lost phone once the passkey it logged in with is deleted, the owner’s other browser still told', async () => {
    const owner = await newOwner();
    const phoneKey = new SoftAuthenticator();
    const passkey = await addPasskey(owner.token, phoneKey);
    const phoneLogin = await logInWith(phoneKey);
    expect(phoneLogin.status).toBe(200);
    const { code } = await ownedItem(stack, owner.token);
    const laptop = stack.push.subscribe();
    const phone = stack.push.subscribe();
    expect((await call('POST', '/user/push/register', { token: owner.token, body: laptop })).status).toBe(204);
    expect((await call('POST', '/user/push/register', { token: phoneLogin.body.token, body: phone })).status).toBe(204);

    // The phone is lost: the owner deletes its passkey from the laptop, which logs the phone out and takes its push.
    expect((await call('DELETE', `/user/passkeys/${passkey.id}`, { token: owner.token })).status).toBe(204);
    expect((await call('GET', '/user/me', { token: phoneLogin.body.token })).status).toBe(401);
    const rowsOf = async (endpoint: string) =>
      (await stack.db.query<{ count: number }>(`SELECT count(*)::int AS count FROM "${stack.schemaOf('notifications')}".push_subscriptions WHERE endpoint = $1`, [endpoint])).rows[0].count;
    await expectEventually(async () => expect(await rowsOf(phone.endpoint)).toBe(0));
    expect(await rowsOf(laptop.endpoint)).toBe(1);

    const found = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your phone' } });
    expect(found.status).toBe(201);
    await stack.push.waitForPushes(laptop);
    expect(stack.push.pushesTo(phone)).toHaveLength(0);
  });

  it('answers another person’s passkey, an id that is no UUID, a bad body and no token in the contract’s format', async () => {
    const owner = await newOwner();
    const stranger = await newOwner();
    const passkey = await addPasskey(owner.token, new SoftAuthenticator());
    expect(await call('DELETE', `/user/passkeys/${passkey.id}`, { token: stranger.token })).toMatchObject({ status: 404, body: { response_code: 'NOT_FOUND' } });
    expect(await call('PATCH', `/user/passkeys/${passkey.id}`, { token: stranger.token, body: { name: 'Mine' } })).toMatchObject({ status: 404 });
    expect(await call('DELETE', '/user/passkeys/not-a-uuid', { token: owner.token })).toMatchObject({ status: 404, body: { response_code: 'NOT_FOUND' } });
    expect(await call('PATCH', `/user/passkeys/${passkey.id}`, { token: owner.token, body: { name: '' } })).toMatchObject({ status: 422, body: { validation: { name: expect.any(String) } } });
    // A name is one line of plain text: a NUL (which PostgreSQL cannot store: it answered 500) or a line break is refused.
    for (const name of ['my\u0000key', 'two\nlines']) {
      expect(await call('PATCH', `/user/passkeys/${passkey.id}`, { token: owner.token, body: { name } })).toMatchObject({ status: 422, body: { validation: { name: expect.any(String) } } });
    }
    expect(await call('POST', '/user/login/passkey', { body: { response: { id: 'x' } } })).toMatchObject({ status: 422, body: { response_code: 'VALIDATION_ERROR' } });
    // Unknown fields are a malformed request, as on every strict body.
    expect(await call('POST', '/user/login/passkey', { body: { response: {}, extra: 1 } })).toMatchObject({ status: 400 });
    expect(await call('POST', '/user/login/passkey-options', { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } })).toMatchObject({ status: 403, body: { response_code: 'FORBIDDEN' } });
    expect(await call('POST', '/user/login/passkey-options', { headers: { 'sec-fetch-site': 'same-origin', origin: stack.publicUrl } })).toMatchObject({ status: 200 });
    expect(await call('GET', '/user/passkeys')).toMatchObject({ status: 401 });
    expect(await call('POST', '/user/passkeys/options')).toMatchObject({ status: 401 });
  });

  it('refuses a passkey made on another origin, and one answered to another session’s options', async () => {
    const owner = await newOwner();
    const options = await call<PasskeyCreationOptions>('POST', '/user/passkeys/options', { token: owner.token });
    const phished = new SoftAuthenticator().register(options.body, { origin: 'http://homing.example' });
    expect(await call('POST', '/user/passkeys', { token: owner.token, body: { response: phished } })).toMatchObject({ status: 422, body: { validation: { response: 'invalid' } } });

    const again = await call<PasskeyCreationOptions>('POST', '/user/passkeys/options', { token: owner.token });
    const other = await call<TokenResponse>('POST', '/user/login', { body: { email: owner.email, password: owner.password } });
    const response = new SoftAuthenticator().register(again.body, { origin: stack.publicUrl });
    expect(await call('POST', '/user/passkeys', { token: other.body.token, body: { response } })).toMatchObject({ status: 422 });
  });
});
