import { randomBytes, randomUUID } from 'node:crypto';
import { formatTagCode, type ClaimResponse, type User } from '@homing/contracts';
import { expectEventually, linkIn, runServiceCommand } from '@homing/testing';
import { startStack, type Stack } from '../support/stack';

interface Answer<T = unknown> {
  status: number;
  body: T;
}

// The e-mails identity's and items' events call for, with the whole stack and the real identity: what a user finds
// in their mailbox works. Notifications hands its mail to the stack's SMTP sink.
describe('e-mail notifications through the whole stack', () => {
  const publicUrl = 'https://homing.e2e';
  // Addresses, codes, tokens and links this suite sees; none may appear in any service's log.
  const secrets = new Set<string>();
  const remember = <T extends string>(value: T): T => {
    secrets.add(value);
    return value;
  };
  let stack: Stack;
  let tags: string[];

  beforeAll(async () => {
    stack = await startStack({
      env: {
        gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' },
        // The welcome mail waits a few seconds here (minutes in production) for the password activation offers.
        notifications: { PUBLIC_URL: publicUrl, NOTIFICATIONS_ROLE: 'all', LOG_LEVEL: 'debug', WELCOME_MAIL_DELAY_MINUTES: '0.1' },
        identity: { LOG_LEVEL: 'debug' },
      },
      beforeStart: async ({ envOf }) => {
        tags = (await runServiceCommand('items', ['seed-tags', '--count', '3'], envOf('items'))).trim().split('\n');
      },
    });
  });

  afterAll(async () => {
    await stack?.stop();
    for (const service of stack?.services.values() ?? []) {
      for (const secret of secrets) expect({ service: service.app, leaked: service.logs.includes(secret) }).toEqual({ service: service.app, leaked: false });
    }
  });

  async function call<T = unknown>(method: string, path: string, options: { body?: unknown; token?: string } = {}): Promise<Answer<T>> {
    // Rate limits count per client address: each call speaks from its own, through the trusted proxy (loopback).
    const headers: Record<string, string> = { 'x-forwarded-for': `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${stack.api}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
  const me = (token: string) => call<User>('GET', '/user/me', { token });

  /** A user as activation makes one (identity.rpc.ensure-user), in a language of their own. */
  async function newUser(language: 'en' | 'nl' | 'es') {
    const email = remember(`owner-${randomUUID()}@example.test`);
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language }), { timeout: 5000 });
    const ensured = reply.json<{ userId: string; passwordToken: string; loginToken: string }>();
    remember(ensured.passwordToken);
    remember(ensured.loginToken);
    return { email, userId: ensured.userId };
  }

  it('mails a login code that logs the user in, in their language', async () => {
    const user = await newUser('es');
    expect((await call('GET', `/magic-link?email=${encodeURIComponent(user.email)}`)).status).toBe(200);
    const mail = await expectMail(user.email, 'Tu código de acceso a Homing');
    const link = remember(linkIn(mail, `${publicUrl}/login/code?code=`));
    const code = remember(new URL(link).searchParams.get('code') ?? '');
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/);
    expect(mail.text).toContain(code);

    const login = await call<{ token: string }>('POST', '/magic-link/login', { body: { code } });
    expect(login.status).toBe(200);
    expect((await me(remember(login.body.token))).body.id).toBe(user.userId);
  });

  it('mails a reset link whose token sets a new password, and never a password', async () => {
    const user = await newUser('nl');
    expect((await call('POST', '/user/password-forgot', { body: { email: user.email } })).status).toBe(200);
    const mail = await expectMail(user.email, 'Stel je Homing-wachtwoord opnieuw in');
    const link = remember(linkIn(mail, `${publicUrl}/reset-password/`));
    const token = remember(decodeURIComponent(link.slice(`${publicUrl}/reset-password/`.length)));

    const password = remember(`new-${randomUUID()}`);
    const reset = await call<{ token: string }>('POST', '/user/password', { body: { token, password } });
    expect(reset.status).toBe(200);
    remember(reset.body.token);
    expect((await call('POST', '/user/login', { body: { email: user.email, password } })).status).toBe(200);
  });

  it('welcomes the new owner of a claimed tag with a set-password link, and tells them the tag is active', async () => {
    const code = tags[0];
    const email = remember(`finder-${randomUUID()}@example.test`);
    const claimed = await call<ClaimResponse>('POST', '/claim', { body: { code, email } });
    expect(claimed.status).toBe(200);
    expect(claimed.body.response_code).toBe('NEW_USER_REGISTERED');
    if (claimed.body.response_code === 'NEW_USER_REGISTERED') {
      remember(claimed.body.password_token);
      remember(claimed.body.login_token);
    }

    const mails = await stack.mail.waitForMails(email, 2);
    const welcome = mails.find((mail) => mail.subject === 'Welcome to Homing');
    const active = mails.find((mail) => mail.subject === 'Your Homing tag is active');
    expect(welcome).toBeDefined();
    expect(active).toBeDefined();
    expect(linkIn(active!, `${publicUrl}/login?ec=`)).toBe(`${publicUrl}/login?ec=${formatTagCode(code.replace(/-/g, ''))}`);

    const link = remember(linkIn(welcome!, `${publicUrl}/set-password/`));
    const token = remember(decodeURIComponent(link.slice(`${publicUrl}/set-password/`.length)));
    const password = remember(`pw-${randomUUID()}`);
    const set = await call<{ token: string }>('POST', '/user/password', { body: { token, password } });
    expect(set.status).toBe(200);
    remember(set.body.token);
    expect((await call('POST', '/user/login', { body: { email, password } })).status).toBe(200);
    // Exactly these two: nothing was sent twice.
    expect(stack.mail.mailsTo(email)).toHaveLength(2);
  });

  it('welcomes a new owner who chose a password at activation with a log-in link, not a set-password link', async () => {
    const email = remember(`finder-${randomUUID()}@example.test`);
    const claimed = await call<ClaimResponse>('POST', '/claim', { body: { code: tags[2], email } });
    expect(claimed.status).toBe(200);
    if (claimed.body.response_code !== 'NEW_USER_REGISTERED') throw new Error(`claimed as ${claimed.body.response_code}`);
    remember(claimed.body.login_token);
    // Activation's next step: the new owner chooses a password at once, before the welcome mail is sent.
    const password = remember(`pw-${randomUUID()}`);
    const set = await call<{ token: string }>('POST', '/user/password', { body: { token: remember(claimed.body.password_token), password } });
    expect(set.status).toBe(200);
    remember(set.body.token);

    const welcome = await expectMail(email, 'Welcome to Homing');
    expect(welcome.text).toContain('the password you chose');
    expect(linkIn(welcome, `${publicUrl}/login`)).toBe(`${publicUrl}/login`);
    expect(welcome.text).not.toContain('/set-password/');
    expect(welcome.html).not.toContain('/set-password/');
  });

  /** Waits for the mail with this subject (a user made by ensure-user also gets a welcome mail). */
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
});
