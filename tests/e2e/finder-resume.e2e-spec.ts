import { randomUUID } from 'node:crypto';
import type { CreateMessageResponse, FinderTokenResponse, HttpErrorBody, Message, PublicItem } from '@homing/contracts';
import { expectEventually, linkIn, type ReceivedMail } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { startStack, type Stack } from '../support/stack';

interface Call {
  token?: string;
  finderToken?: string;
  language?: string;
  body?: unknown;
}

// A finder's language and the links that bring their conversation to any browser, with the whole stack: the
// finder's e-mails speak the language their browser wrote in, and carry a resume link that works elsewhere.
describe('a finder’s language and resume links', () => {
  const publicUrl = 'https://homing.e2e';
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { notifications: { PUBLIC_URL: publicUrl } } });
  });

  afterAll(() => stack?.stop());

  async function call<T>(method: string, path: string, options: Call = {}): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = {};
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.finderToken) headers['x-finder-token'] = options.finderToken;
    if (options.language) headers['x-language'] = options.language;
    const response = await fetch(`${stack.api}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  const write = (code: string, content: string, options: Call = {}) => call<CreateMessageResponse & HttpErrorBody>('POST', `/items/${code}/messages`, { ...options, body: { content } });
  const read = (code: string, options: Call = {}) => call<Message[] & HttpErrorBody>('GET', `/items/${code}/messages`, options);
  const resume = (code: string, token: string) => call<FinderTokenResponse & HttpErrorBody>('POST', `/items/${code}/finder-resume`, { body: { token } });

  async function ownedItem(): Promise<{ code: string; owner: string }> {
    const { token } = testAccessToken();
    const created = await call<PublicItem>('POST', '/items', { token, body: { name: 'Keys' } });
    expect(created.status).toBe(201);
    await expectEventually(async () => expect((await call('GET', `/user/items/${created.body.code}/unread-count`, { token })).status).toBe(200));
    return { code: created.body.code, owner: token };
  }

  function expectMail(address: string, subject: string, count = 1): Promise<ReceivedMail> {
    return expectEventually(
      () => {
        const mails = stack.mail.mailsTo(address).filter((candidate) => candidate.subject === subject);
        if (mails.length < count) throw new Error(`${mails.length} "${subject}" among ${stack.mail.mailsTo(address).map((candidate) => `"${candidate.subject}"`).join(', ') || 'no e-mails'}`);
        return mails[count - 1];
      },
      { timeoutMs: 30_000 },
    );
  }

  const tokenOf = (link: string) => new URL(link).searchParams.get('resume') ?? '';

  /** A Spanish finder who wrote and left an address, and the owner's reply e-mailed to them. */
  async function spanishFinderWithReply() {
    const { code, owner } = await ownedItem();
    const email = `finder-${randomUUID()}@example.test`;
    const first = await write(code, 'Encontré tus llaves', { language: 'es' });
    expect(first.status).toBe(201);
    const finderToken = first.body.finder_token as string;
    expect((await call('POST', `/items/${code}/set-finder`, { finderToken, body: { email } })).status).toBe(200);
    expect((await write(code, 'Thank you! Where are you?', { token: owner, language: 'en' })).status).toBe(201);
    const mail = await expectMail(email, 'El dueño respondió a tu mensaje');
    return { code, owner, email, finderToken, conversationId: first.body.message.conversation_id, mail };
  }

  it('e-mails a finder who wrote in Spanish in Spanish, with a link that opens their conversation in another browser', async () => {
    const { code, finderToken, conversationId, mail } = await spanishFinderWithReply();
    expect(mail.text).toContain('Tu dirección de correo nunca se muestra al dueño.');
    const link = linkIn(mail, `${publicUrl}/found/${code}?resume=`);
    const token = tokenOf(link);
    expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);

    // Another browser: the link's token for a finder token of the same conversation.
    const exchanged = await resume(code, token);
    expect(exchanged.status).toBe(200);
    const elsewhere = exchanged.body.finder_token;
    expect(elsewhere).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(elsewhere).not.toBe(finderToken);
    expect((await read(code, { finderToken: elsewhere })).body.map((message) => [message.author, message.content])).toEqual([
      ['finder', 'Encontré tus llaves'],
      ['owner', 'Thank you! Where are you?'],
    ]);
    // It writes into the same conversation, and the first browser keeps working.
    const more = await write(code, 'En la estación', { finderToken: elsewhere });
    expect(more.status).toBe(201);
    expect(more.body.message.conversation_id).toBe(conversationId);
    expect(more.body).not.toHaveProperty('finder_token');
    expect((await read(code, { finderToken })).body.map((message) => message.content)).toEqual(['Encontré tus llaves', 'Thank you! Where are you?', 'En la estación']);
    // The link is not itself a finder token.
    expect((await read(code, { finderToken: token })).status).toBe(403);
  });

  it('opens the conversation from the link in a browser that runs no script (the page itself exchanges it, for a cookie)', async () => {
    const { code, mail } = await spanishFinderWithReply();
    const token = tokenOf(linkIn(mail, `${publicUrl}/found/${code}?resume=`));
    const page = await fetch(`${stack.api.replace(/\/api\/v1$/, '')}/found/${code}?resume=${token}`, { headers: { 'accept-language': 'es' } });
    const html = await page.text();
    expect({ status: page.status, cacheControl: page.headers.get('cache-control') }).toEqual({ status: 200, cacheControl: 'private, no-store' });
    expect(html).toContain('Encontré tus llaves');
    expect(html).toContain('Thank you! Where are you?');
    const cookie = page.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    // The cookie alone brings the conversation back on the next visit.
    const again = await fetch(`${stack.api.replace(/\/api\/v1$/, '')}/found/${code}`, { headers: { cookie: cookie.split(';')[0] } });
    expect(await again.text()).toContain('Thank you! Where are you?');
    // An altered link: the page says the link no longer holds, and shows no conversation.
    const altered = await fetch(`${stack.api.replace(/\/api\/v1$/, '')}/found/${code}?resume=${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`);
    const alteredHtml = await altered.text();
    expect(altered.status).toBe(422);
    expect(alteredHtml).not.toContain('Encontré tus llaves');
  });

  it('refuses an altered, a made-up and an expired link with 422 RESUME_LINK_EXPIRED, giving no token', async () => {
    const { code, conversationId, mail } = await spanishFinderWithReply();
    const token = tokenOf(linkIn(mail, `${publicUrl}/found/${code}?resume=`));
    const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const attempt of [altered, 'AAAAAAAAAAAAAAAAAAAAAA', 'not a token at all']) {
      const refused = await resume(code, attempt);
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ response_code: 'RESUME_LINK_EXPIRED', message: expect.any(String) });
      expect(refused.body).not.toHaveProperty('finder_token');
    }
    // The token is of this item only.
    const other = await ownedItem();
    expect((await resume(other.code, token)).status).toBe(422);

    // 31 days without a message: the link has expired.
    const schema = stack.schemaOf('messaging');
    await stack.db.query(`UPDATE "${schema}".conversations SET created_at = now() - interval '40 days', last_message_at = now() - interval '31 days' WHERE id = $1`, [conversationId]);
    const expired = await resume(code, token);
    expect(expired.status).toBe(422);
    expect(expired.body).toMatchObject({ response_code: 'RESUME_LINK_EXPIRED' });
  });

  it('answers a request for a link the same for a known and an unknown address, and mails only the finder who wrote', async () => {
    const { code, email } = await spanishFinderWithReply();
    const stranger = `stranger-${randomUUID()}@example.test`;
    const known = await call('POST', `/items/${code}/resume-link`, { body: { email: email.toUpperCase() } });
    const unknown = await call('POST', `/items/${code}/resume-link`, { body: { email: stranger } });
    expect(known.status).toBe(202);
    expect(unknown).toEqual(known);

    // In the finder's language, whatever the request's; with a link that opens their conversation.
    const mail = await expectMail(email, 'El enlace a tu conversación en Homing');
    const exchanged = await resume(code, tokenOf(linkIn(mail, `${publicUrl}/found/${code}?resume=`)));
    expect(exchanged.status).toBe(200);
    expect((await read(code, { finderToken: exchanged.body.finder_token })).body).toHaveLength(2);
    // Whatever else happened meanwhile, nothing went to the stranger.
    await expectMail(email, 'El dueño respondió a tu mensaje');
    expect(stack.mail.mailsTo(stranger)).toEqual([]);

    // A bad address is a clear 422, an unknown item a 404: the contract's format.
    const invalid = await call<HttpErrorBody>('POST', `/items/${code}/resume-link`, { body: { email: 'not-an-address' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ response_code: 'VALIDATION_ERROR' });
  });

  it('keeps a finder’s later language when they write with another', async () => {
    const { code, owner, email, finderToken } = await spanishFinderWithReply();
    expect((await write(code, 'Ik ben er om vijf uur', { finderToken, language: 'nl' })).status).toBe(201);
    expect((await write(code, 'Tot dan!', { token: owner })).status).toBe(201);
    const mail = await expectMail(email, 'De eigenaar heeft je bericht beantwoord');
    expect(linkIn(mail, `${publicUrl}/found/${code}?resume=`)).toBeTruthy();
  });
});
