import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import type { ClaimResponse, CreateMessageResponse, HttpErrorBody } from '@homing/contracts';
import { expectEventually, runServiceCommand } from '@homing/testing';
import { reportFigure, sized } from '../fault/harness/figures';
import { startStack, type Stack } from '../support/stack';
import { call as callStack, clientAddress, findSecrets, forgetMailBudgets, type Answer, type CallOptions } from './support';

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; security?: unknown[] }>>;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const randomCode = () => Array.from(randomBytes(16), (byte) => CROCKFORD[byte & 31]).join('').replace(/(.{4})(?!$)/g, '$1-');
const DATABASE_ERROR = /QueryFailedError|syntax error at or near|invalid input syntax|relation "[^"]+"|duplicate key value|violates|unterminated/i;

// S8–S10, S12, S13, B2–B4, A1, A3 and A4 of RELIABILITY.md: the API's surface (origins, headers, tenants, push
// endpoints, bad input) and its abuse (code enumeration, mail bombing, message floods), with one stack. Every call
// speaks from its own client address through the trusted proxy (loopback) unless a test means one address.
describe('the API surface under attack (S8–S10, S12, S13, B2–B4, A1, A3, A4)', () => {
  let stack: Stack;
  let tags: string[];
  let seededTags: string[];
  const secrets = new Set<string>();
  const remember = <T extends string>(value: T): T => {
    secrets.add(value);
    return value;
  };
  // What anyone may see: answers to calls without credentials, and every error answer.
  const publicTexts: Array<{ where: string; text: string }> = [];
  async function call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
    const answer = await callStack<T>(stack, method, path, options);
    if ((!options.token && !options.finderToken && method === 'GET') || answer.status >= 400) publicTexts.push({ where: `${method} ${path.slice(0, 60)} → ${answer.status}`, text: answer.text });
    return answer;
  }
  const unusedTag = () => {
    const tag = tags.pop();
    if (!tag) throw new Error('out of seeded tags');
    return tag;
  };

  beforeAll(async () => {
    stack = await startStack({
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } },
      beforeStart: async ({ envOf }) => {
        tags = (await runServiceCommand('items', ['seed-tags', '--count', '80'], envOf('items'))).trim().split('\n');
        seededTags = [...tags];
      },
    });
  });

  afterAll(() => stack?.stop());

  /** A real owner (identity knows their address) of a claimed tag, once messaging has learnt who owns it. */
  async function owner(name?: string): Promise<{ code: string; token: string; email: string }> {
    const code = unusedTag();
    const email = remember(`owner-${randomUUID()}@example.test`);
    const claimed = await call<ClaimResponse>('POST', '/claim', { body: { code, email } });
    expect(claimed.body.response_code).toBe('NEW_USER_REGISTERED');
    const token = remember(claimed.body.response_code === 'NEW_USER_REGISTERED' ? claimed.body.login_token : '');
    if (claimed.body.response_code === 'NEW_USER_REGISTERED') remember(claimed.body.password_token);
    if (name !== undefined) expect((await call('PATCH', `/user/items/${code}`, { token, body: { name } })).status).toBe(200);
    await expectEventually(async () => expect((await call('GET', `/user/items/${code}/unread-count`, { token })).status).toBe(200));
    return { code, token, email };
  }

  async function finderWrites(code: string, content: string, options: CallOptions = {}): Promise<Answer<CreateMessageResponse & HttpErrorBody>> {
    const answer = await call<CreateMessageResponse & HttpErrorBody>('POST', `/items/${code}/messages`, { ...options, body: { content } });
    if (answer.body?.finder_token) remember(answer.body.finder_token);
    return answer;
  }

  // Mails that lead to a thread: a finder's to the found page, an owner's through the login page (`/login?c=`).
  const foundMailsTo = (email: string) => stack.mail.mailsTo(email).filter((mail) => /\/found\/|\/login\?c=/.test(mail.text));
  const requestedMailsTo = (email: string) => stack.mail.mailsTo(email).filter((mail) => /\/login\/code|\/reset-password\//.test(mail.text));

  it('S8: accepts no cross-origin state change', async () => {
    const { code, token } = await owner();
    const document = (await (await fetch(`${stack.base}/api/docs/openapi.json`)).json()) as OpenApiDocument;
    const writes = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => method !== 'get')
        .map((method) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, code).replace(/^\/api\/v1/, '') })),
    );
    const evil = 'https://evil.example';
    const accepted: string[] = [];
    let tries = 0;
    for (const { method, path } of writes) {
      // A preflight from another origin is never granted, so a browser never sends a credentialed or JSON write.
      const preflight = await fetch(`${stack.api}${path}`, {
        method: 'OPTIONS',
        headers: { origin: evil, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type,x-finder-token', 'x-forwarded-for': clientAddress() },
      });
      await preflight.text();
      tries += 1;
      const allowed = preflight.headers.get('access-control-allow-origin');
      if (allowed === '*' || allowed === evil) accepted.push(`preflight ${method} ${path}`);
      // What a page may send without a preflight: a form or text/plain, with no Authorization header.
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const body = contentType.startsWith('multipart') ? '--x\r\nContent-Disposition: form-data; name="content"\r\n\r\nhello\r\n--x--\r\n' : JSON.stringify({ content: 'hello', email: 'x@example.test', code, name: 'x' });
        const answer = await call(method, path, { body, headers: { origin: evil, 'content-type': contentType } });
        tries += 1;
        if (answer.status < 300) accepted.push(`${contentType} ${method} ${path} → ${answer.status}`);
        if (answer.headers.get('access-control-allow-origin')) accepted.push(`${method} ${path} readable by ${evil}`);
      }
    }
    // A credentialed read from another origin is not readable by it either.
    const read = await call('GET', '/user/me', { token, headers: { origin: evil } });
    tries += 1;
    if (read.headers.get('access-control-allow-origin')) accepted.push('GET /user/me readable cross-origin');
    reportFigure({
      id: 'S8',
      test: `cross-origin writes to ${writes.length} operations (preflight, form, text/plain, multipart)`,
      figure: `accepted ${accepted.length} of ${tries}`,
      size: `${writes.length} operations × 4`,
      passed: accepted.length === 0,
    });
    expect(accepted).toEqual([]);
  });

  it('S9: sends HSTS, nosniff and no-store on every API answer, and a strict CSP on every document', async () => {
    const { code, token } = await owner();
    const document = (await (await fetch(`${stack.base}/api/docs/openapi.json`)).json()) as OpenApiDocument;
    const requests: Array<{ method: string; url: string; authenticated: boolean }> = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const method of Object.keys(methods)) {
        const concrete = path.replace('{size}', 'thumbnail').replace(/\{[^}]+\}/g, code);
        // Destructive routes are called on an unknown code: their answer is what is checked, not their effect.
        const safe = method === 'delete' || /reset|logout/.test(path) ? path.replace(/\{[^}]+\}/g, 'ZZZZ-ZZZZ-ZZZZ-ZZZZ') : concrete;
        requests.push({ method: method.toUpperCase(), url: `${stack.base}${safe}`, authenticated: false });
        // Logging out would end the session the other requests use.
        if (!path.endsWith('/logout')) requests.push({ method: method.toUpperCase(), url: `${stack.base}${safe}`, authenticated: true });
      }
    }
    for (const extra of ['/', '/found/ABCD', '/api/docs', '/api/v1/no-such-route', '/health/live', '/api/v1/items/%E0%A4%A']) requests.push({ method: 'GET', url: `${stack.base}${extra}`, authenticated: false });
    const missing: string[] = [];
    for (const request of requests) {
      const headers: Record<string, string> = { 'x-forwarded-for': clientAddress() };
      if (request.authenticated) headers.authorization = `Bearer ${token}`;
      if (!['GET', 'HEAD', 'DELETE'].includes(request.method)) headers['content-type'] = 'application/json';
      const response = await fetch(request.url, { method: request.method, headers, body: headers['content-type'] ? '{}' : undefined, signal: AbortSignal.timeout(10_000) });
      await response.body?.cancel();
      const name = `${request.method} ${request.url.slice(stack.base.length)}${request.authenticated ? ' (token)' : ''} → ${response.status}`;
      const header = (key: string) => response.headers.get(key) ?? '';
      if (!header('strict-transport-security').includes('max-age=')) missing.push(`${name}: HSTS`);
      if (header('x-content-type-options') !== 'nosniff') missing.push(`${name}: nosniff`);
      // No referrer, but on the finder page the gateway renders (same-origin: its form posts must carry their Origin).
      const referrerPolicy = /^\/found\/[^/]+$/.test(new URL(request.url).pathname) ? 'same-origin' : 'no-referrer';
      if (header('referrer-policy') !== referrerPolicy) missing.push(`${name}: referrer-policy`);
      if (/text\/html|image\/svg/.test(header('content-type'))) {
        const csp = header('content-security-policy');
        for (const directive of ["object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) if (!csp.includes(directive)) missing.push(`${name}: CSP ${directive}`);
      }
      // Authenticated and auth answers are never stored; public images may be cached (they carry no personal data).
      const isAuthRoute = /\/(user|auth|magic-link|claim|admin)\b/.test(request.url);
      const isPublicImage = /^(image\/|text\/plain)/.test(header('content-type')) && !header('cache-control').includes('private');
      if (request.url.includes('/api/v1/') && (request.authenticated || isAuthRoute) && !isPublicImage && !/no-store|private/.test(header('cache-control'))) missing.push(`${name}: no-store (${header('cache-control') || 'none'})`);
    }
    reportFigure({
      id: 'S9',
      test: `security headers on ${requests.length} answers (every OpenAPI operation with and without a token, documents, errors)`,
      figure: `answers missing HSTS/CSP/nosniff/no-store where due: ${missing.length}`,
      size: `${requests.length} answers`,
      passed: missing.length === 0,
    });
    expect(missing).toEqual([]);
  });

  it("S10: lets no owner at another's item and no finder at another finder's conversation", async () => {
    const a = await owner('A’s keys');
    const b = await owner('B’s wallet');
    const x = await finderWrites(b.code, 'Finder X here');
    const y = await finderWrites(b.code, 'Finder Y here, secret meeting point');
    const other = await owner();
    const z = await finderWrites(other.code, 'Finder Z on another item');
    const [tokenX, tokenY, tokenZ] = [x.body.finder_token, y.body.finder_token, z.body.finder_token] as string[];
    const conversationOfY = y.body.message.conversation_id;
    const breaches: string[] = [];
    const attempt = async (what: string, method: string, path: string, options: CallOptions, leaks?: (answer: Answer) => boolean) => {
      const answer = await call(method, path, options);
      if (answer.status < 300 && (leaks ? leaks(answer) : true)) breaches.push(`${what} → ${answer.status} ${answer.text.slice(0, 120)}`);
    };
    const showsB = (answer: Answer) => /wallet|secret meeting|Finder X|Finder Y/.test(answer.text);
    // Owner A on B's item.
    await attempt('A reads B’s item', 'GET', `/user/items/${b.code}`, { token: a.token });
    await attempt('A renames B’s item', 'PATCH', `/user/items/${b.code}`, { token: a.token, body: { name: 'mine now' } });
    await attempt('A resets B’s item', 'POST', `/user/items/${b.code}/reset`, { token: a.token });
    await attempt('A deletes B’s item', 'DELETE', `/user/items/${b.code}`, { token: a.token });
    await attempt('A counts B’s unread', 'GET', `/user/items/${b.code}/unread-count`, { token: a.token });
    await attempt('A reads B’s finder details', 'GET', `/items/${b.code}/finder-details`, { token: a.token });
    await attempt('A reads B’s thread', 'GET', `/items/${b.code}/messages`, { token: a.token }, showsB);
    await attempt('A streams B’s thread', 'GET', `/items/${b.code}/messages?after=0`, { token: a.token }, showsB);
    await attempt('A lists items with B’s', 'GET', '/user/items', { token: a.token }, (answer) => answer.text.includes(b.code.replace(/-/g, '')) || answer.text.includes(b.code));
    await attempt('A downloads B’s QR as owner', 'GET', `/items/${b.code}/qr/download`, { token: a.token }, (answer) => answer.headers.get('cache-control')?.includes('private') ?? false);
    await attempt('A sees B’s found flag', 'GET', `/user/found-items?codes=${b.code}`, { token: a.token }, (answer) => answer.text.includes('true'));
    await attempt('A replies into B’s conversation', 'POST', `/items/${b.code}/messages`, { token: a.token, body: { content: 'hi', conversation_id: conversationOfY } }, (answer) => answer.text.includes('"author":"owner"') || answer.text.includes(conversationOfY));
    await attempt('A scans B’s item as owner', 'GET', `/items/${b.code}`, { token: a.token }, (answer) => answer.text.includes('"is_owner":true') || answer.text.includes('user_id'));
    // Finder X on finder Y's conversation, and finder Z (of another item) on B's.
    await attempt('X reads Y’s messages', 'GET', `/items/${b.code}/messages`, { finderToken: tokenX }, (answer) => answer.text.includes('secret meeting'));
    await attempt('X writes into Y’s conversation', 'POST', `/items/${b.code}/messages`, { finderToken: tokenX, body: { content: 'into Y', conversation_id: conversationOfY } }, (answer) => answer.text.includes(conversationOfY));
    await attempt('Z reads B’s thread', 'GET', `/items/${b.code}/messages`, { finderToken: tokenZ }, showsB);
    await attempt('Z registers push on B’s item', 'POST', `/items/${b.code}/push/register`, { finderToken: tokenZ, body: stack.push.subscribe() });
    await attempt('Y’s token as X’s on another item', 'GET', `/items/${other.code}/messages`, { finderToken: tokenY }, (answer) => answer.text.includes('Finder Z'));
    await attempt('no token reads B’s thread', 'GET', `/items/${b.code}/messages`, {}, showsB);
    const bStill = await call<{ name: string }>('GET', `/user/items/${b.code}`, { token: b.token });
    const thread = await call('GET', `/items/${b.code}/messages`, { token: b.token });
    const attempts = 19;
    reportFigure({
      id: 'S10',
      test: "owner A on B's item, finders X and Z on finder Y's conversation",
      figure: `cross-tenant accesses ${breaches.length} of ${attempts}${breaches.length ? ` (${breaches.join('; ').slice(0, 300)})` : ''}`,
      size: `${attempts} attempts`,
      passed: breaches.length === 0 && bStill.body.name === 'B’s wallet',
    });
    expect(breaches).toEqual([]);
    expect(bStill.body.name).toBe('B’s wallet');
    expect(thread.text).toContain('secret meeting');
  });

  it('S12: refuses push subscriptions at internal or non-push hosts, and contacts no internal address', async () => {
    const { code, token } = await owner();
    const connections: string[] = [];
    const trap: Server = createServer((socket) => {
      connections.push(String(socket.remoteAddress));
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    const trapPort = (trap.address() as { port: number }).port;
    const pushPort = stack.push.host.split(':')[1];
    const valid = stack.push.subscribe();
    const endpoints = [
      `https://127.0.0.1:${trapPort}/push/1`,
      `https://localhost:${trapPort}/push/1`,
      `https://[::1]:${trapPort}/push/1`,
      `https://0.0.0.0:${trapPort}/push/1`,
      `https://2130706433:${trapPort}/push/1`,
      `https://0x7f.0.0.1:${trapPort}/push/1`,
      `https://localhost:${pushPort}@127.0.0.1:${trapPort}/push/1`,
      `https://localhost:${pushPort}.127.0.0.1.nip.io:${trapPort}/push/1`,
      `http://localhost:${pushPort}/push/1`,
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/push',
      'https://192.168.1.1/push',
      'https://[fd00::1]/push',
      'https://metadata.google.internal/push',
      'https://example.com/push/1',
      'file:///etc/passwd',
    ];
    const finder = await finderWrites(code, 'a finder who subscribes');
    const accepted: string[] = [];
    for (const endpoint of endpoints) {
      const owned = await call('POST', '/user/push/register', { token, body: { ...valid, endpoint } });
      const found = await call('POST', `/items/${code}/push/register`, { finderToken: finder.body.finder_token, body: { ...valid, endpoint } });
      const moved = await call('POST', '/user/push/reregister', { token, body: { ...valid, endpoint, old_endpoint: valid.endpoint } });
      for (const [route, answer] of [['owner', owned], ['finder', found], ['reregister', moved]] as const) if (answer.status < 300) accepted.push(`${route} ${endpoint}`);
    }
    // A genuine subscription still works, and a message makes notifications push to every subscription it kept.
    expect((await call('POST', '/user/push/register', { token, body: valid })).status).toBe(204);
    expect((await finderWrites(code, 'push time', { finderToken: finder.body.finder_token })).status).toBe(201);
    await stack.push.waitForPushes(valid);
    const { rows } = await stack.db.query<{ endpoint: string }>(`SELECT endpoint FROM "${stack.schemaOf('notifications')}".push_subscriptions`);
    const stored = rows.filter((row) => !row.endpoint.startsWith(`https://${stack.push.host}/`)).length;
    await new Promise<void>((resolve) => trap.close(() => resolve()));
    reportFigure({
      id: 'S12',
      test: `push subscriptions at ${endpoints.length} internal or non-push endpoints (owner, finder, re-register)`,
      figure: `accepted ${accepted.length} of ${endpoints.length * 3}; stored ${stored}; internal addresses contacted ${connections.length}`,
      size: `${endpoints.length} endpoints × 3 routes`,
      passed: accepted.length === 0 && stored === 0 && connections.length === 0,
    });
    expect({ accepted, stored, connections }).toEqual({ accepted: [], stored: 0, connections: [] });
  });

  it('B2: refuses oversized and wrongly typed input before any expensive work (413/400/415/422)', async () => {
    const { code, token } = await owner();
    const cases: Array<{ name: string; expected: number[]; send(): Promise<Answer> }> = [
      { name: '1 MB JSON body to a message', expected: [413], send: () => call('POST', `/items/${code}/messages`, { body: JSON.stringify({ content: 'x'.repeat(1024 * 1024) }) }) },
      { name: '1 MB password to the login (no hashing)', expected: [413], send: () => call('POST', '/user/login', { body: JSON.stringify({ email: 'a@example.test', password: 'x'.repeat(1024 * 1024) }) }) },
      { name: '60 KB password to the login (no hashing)', expected: [400, 422], send: () => call('POST', '/user/login', { body: { email: 'a@example.test', password: 'x'.repeat(60_000) } }) },
      { name: 'message over 2,000 characters', expected: [422], send: () => call('POST', `/items/${code}/messages`, { body: { content: 'x'.repeat(2001) } }) },
      { name: 'item name over 100 characters', expected: [422], send: () => call('PATCH', `/user/items/${code}`, { token, body: { name: 'x'.repeat(101) } }) },
      { name: 'JSON nested 20,000 deep', expected: [400, 422], send: () => call('POST', `/items/${code}/messages`, { body: `${'['.repeat(20_000)}${']'.repeat(20_000)}` }) },
      { name: 'JSON object nested 10,000 deep', expected: [400, 422], send: () => call('POST', '/claim', { body: `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}` }) },
      { name: 'QR of 1,000,000 px', expected: [400, 422], send: () => call('GET', `/qr/${code}?sizeInPx=1000000`, { root: true }) },
      { name: 'QR PNG of 100,000 px', expected: [400, 422], send: () => call('GET', `/items/${code}/qr/download?sizeInPx=100000`, { token }) },
      { name: 'QR of 1e308 px', expected: [400, 422], send: () => call('GET', `/qr/${code}?sizeInPx=1e308`, { root: true }) },
      { name: 'text/plain body', expected: [415], send: () => call('POST', `/items/${code}/messages`, { body: '{"content":"hi"}', headers: { 'content-type': 'text/plain' } }) },
      { name: 'XML body', expected: [415], send: () => call('POST', '/claim', { body: '<claim/>', headers: { 'content-type': 'application/xml' } }) },
      { name: 'form body', expected: [415], send: () => call('POST', '/user/login', { body: 'email=a&password=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }) },
      { name: 'JSON to the photo upload', expected: [415], send: () => call('POST', '/images/upload', { token, body: { code } }) },
      { name: '6 MB photo', expected: [413], send: () => call('POST', '/images/upload', { token, body: multipart(code, 6 * 1024 * 1024), headers: { 'content-type': 'multipart/form-data; boundary=b' } }) },
      { name: '2,000-character code', expected: [404, 400], send: () => call('GET', `/items/${'A'.repeat(2000)}`) },
      { name: '20 KB query string', expected: [400, 414, 422, 431], send: () => call('GET', `/user/found-items?codes=${'A,'.repeat(10_000)}`, { token }) },
    ];
    const wrong: string[] = [];
    let slowest = 0;
    for (const testCase of cases) {
      const answer = await testCase.send();
      slowest = Math.max(slowest, answer.ms);
      if (!testCase.expected.includes(answer.status)) wrong.push(`${testCase.name} → ${answer.status} ${answer.text.slice(0, 120)}`);
      else if (answer.ms > 1000) wrong.push(`${testCase.name} took ${Math.round(answer.ms)} ms`);
    }
    const { rows } = await stack.db.query(`SELECT count(*)::int AS count FROM "${stack.schemaOf('messaging')}".messages WHERE length(content) > 2000`);
    reportFigure({
      id: 'B2',
      test: `${cases.length} oversized or wrongly typed requests (1 MB bodies, deep JSON, huge QR, long message, wrong content types)`,
      figure: `answered otherwise than 413/400/415/422 ${wrong.length} of ${cases.length}; slowest ${Math.round(slowest)} ms; stored ${rows[0].count}`,
      size: `${cases.length} requests`,
      passed: wrong.length === 0 && rows[0].count === 0,
    });
    expect(wrong).toEqual([]);
    expect(rows[0].count).toBe(0);
  });

  it('B3: puts no header and no unescaped HTML of item names or messages into any mail', async () => {
    const hostile = ['Keys\r\nBcc: victim@example.test\r\nX-Injected: 1', '<script>alert(1)</script>', '<a href="javascript:alert(1)">open</a>', '"><img src=x onerror=alert(1)>'];
    const names: string[] = [];
    const mailsBefore = stack.mail.received.length;
    const owners: Array<{ code: string; token: string; email: string }> = [];
    for (const name of hostile) {
      const item = await owner();
      // A name with CR/LF may be refused; what is accepted must not reach a header.
      const renamed = await call('PATCH', `/user/items/${item.code}`, { token: item.token, body: { name } });
      if (renamed.status === 200) names.push(name);
      owners.push(item);
    }
    const finderEmail = remember(`finder-${randomUUID()}@example.test`);
    for (const [index, item] of owners.entries()) {
      const first = await finderWrites(item.code, hostile[index]);
      expect(first.status).toBe(201);
      expect(first.body.message.content).toBe(hostile[index].replace(/\r\n/g, '\n'));
      // The finder leaves an address, so the owner's reply (hostile too) reaches them by e-mail.
      await call('POST', `/items/${item.code}/set-finder`, { finderToken: first.body.finder_token, body: { email: finderEmail } });
      expect((await call('POST', `/items/${item.code}/messages`, { token: item.token, body: { content: hostile[(index + 1) % hostile.length] } })).status).toBe(201);
    }
    for (const item of owners) await expectEventually(() => expect(foundMailsTo(item.email).length).toBeGreaterThanOrEqual(1), { timeoutMs: 20_000 });
    await expectEventually(() => expect(stack.mail.mailsTo(finderEmail).length).toBeGreaterThanOrEqual(owners.length), { timeoutMs: 20_000 });
    const mails = stack.mail.received.slice(mailsBefore);
    const injected = mails.filter((mail) => mail.headers.some(({ key }) => /^(bcc|x-injected)$/i.test(key)) || mail.to.some((to) => to.includes('victim'))).length;
    const unescaped = mails.filter((mail) => /<script|javascript:|onerror=|<img src=x/i.test(mail.html)).length;
    reportFigure({
      id: 'B3',
      test: 'CR/LF, <script>, javascript: links and attribute breaks in item names and messages, through owner and finder mails',
      figure: `injected mail headers ${injected}; mails with unescaped HTML ${unescaped} (of ${mails.length} mails; hostile names accepted ${names.length} of ${hostile.length})`,
      size: `${hostile.length} items, ${mails.length} mails`,
      passed: injected === 0 && unescaped === 0,
    });
    expect({ injected, unescaped }).toEqual({ injected: 0, unescaped: 0 });
    expect(stack.mail.mailsTo('victim@example.test')).toEqual([]);
  });

  it('B4: answers malformed, unknown, URL-encoded and SQL-ish codes with one response class, and no database error', async () => {
    const unknown = 'ZZZZ-ZZZZ-ZZZZ-ZZZ0';
    const odd = ['x', 'ZZZZ', 'zzzz-zzzz-zzzz-zzz0', "' OR '1'='1", "1'; DROP TABLE items;--", '%27%20OR%201%3D1--', '%00', '..%2F..%2Fetc%2Fpasswd', 'ＡＢＣＤ-ＥＦＧＨ', '\u0000', 'A'.repeat(300), '$1', '*', '🔑', 'ABCD-EFGH-IJKL-MNOP', 'null', 'undefined', '-1', '0'];
    const routes: Array<{ name: string; send(code: string): Promise<Answer> }> = [
      { name: 'GET /items/{code}', send: (code) => call('GET', `/items/${encodeURIComponent(code)}`) },
      { name: 'GET /qr/{code}', send: (code) => call('GET', `/qr/${encodeURIComponent(code)}`, { root: true }) },
      { name: 'GET /items/{code}/messages', send: (code) => call('GET', `/items/${encodeURIComponent(code)}/messages`) },
      { name: 'POST /items/{code}/messages', send: (code) => call('POST', `/items/${encodeURIComponent(code)}/messages`, { body: { content: 'hello' } }) },
      { name: 'POST /claim', send: (code) => call('POST', '/claim', { body: { code, email: 'b4@example.test' } }) },
    ];
    const mismatches: string[] = [];
    let requests = 0;
    for (const route of routes) {
      const reference = await route.send(unknown);
      const expected = `${reference.status} ${(reference.body as HttpErrorBody)?.response_code}`;
      for (const code of odd) {
        const answer = await route.send(code);
        requests += 1;
        const got = `${answer.status} ${(answer.body as HttpErrorBody)?.response_code}`;
        // A body field longer than its contract allows (64 characters, longer than any code) is a validation error
        // of the request's shape (422 max=64), the same for every such string: it tells nothing about codes.
        const overlongField = route.name === 'POST /claim' && code.length > 64 && answer.status === 422 && (answer.body as HttpErrorBody).validation?.code === 'max=64';
        if ((got !== expected && !overlongField) || DATABASE_ERROR.test(answer.text)) mismatches.push(`${route.name} ${JSON.stringify(code).slice(0, 30)} → ${got} (unknown: ${expected})`);
      }
    }
    const databaseErrors = [...stack.services].filter(([, service]) => DATABASE_ERROR.test(service.logs)).map(([name]) => name);
    reportFigure({
      id: 'B4',
      test: `malformed, unknown, URL-encoded and SQL-ish codes on ${routes.length} routes`,
      figure: `answers unlike an unknown code's ${mismatches.length} of ${requests}; database errors ${databaseErrors.length}`,
      size: `${odd.length} codes × ${routes.length} routes`,
      passed: mismatches.length === 0 && databaseErrors.length === 0,
    });
    expect(mismatches).toEqual([]);
    expect(databaseErrors).toEqual([]);
  });

  it('A1: finds no tag by guessing codes, and one address is held to its limit', async () => {
    const seeded = new Set(seededTags.map((tag) => tag.replace(/-/g, '')));
    const guesses = sized(300, 5000);
    const addresses = sized(30, 200);
    let found = 0;
    const statuses = new Map<number, number>();
    // Many addresses, each within its budget of misses.
    for (let index = 0; index < guesses; index += 1) {
      const code = randomCode();
      const answer = await call('GET', `/items/${code}`, { from: `10.77.${index % addresses}.${Math.floor(index / addresses) % 250}` });
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 200 || seeded.has(code.replace(/-/g, ''))) found += 1;
    }
    // One address: 30 misses an hour, then 429 with Retry-After, even for a code that exists.
    const one = clientAddress();
    const fromOne: number[] = [];
    for (let index = 0; index < 40; index += 1) fromOne.push((await call('GET', `/items/${randomCode()}`, { from: one })).status);
    const real = await call('GET', `/items/${tags[0]}`, { from: one });
    const limitedAfter = fromOne.indexOf(429);
    const retryAfter = Number((await call('GET', `/items/${randomCode()}`, { from: one })).headers.get('retry-after'));
    reportFigure({
      id: 'A1',
      test: 'random code enumeration against seeded tags',
      figure: `tags found ${found} of ${guesses} guesses (${[...statuses].map(([status, count]) => `${status}×${count}`).join(', ')}); one address limited after ${limitedAfter} misses, Retry-After ${retryAfter} s`,
      size: `${guesses} guesses from ${addresses} addresses; ${tags.length} tags`,
      passed: found === 0 && limitedAfter === 30 && retryAfter > 0,
    });
    expect(found).toBe(0);
    expect(limitedAfter).toBe(30);
    expect(fromOne.slice(30).every((status) => status === 429)).toBe(true);
    expect([200, 429]).toContain(real.status);
    expect(retryAfter).toBeGreaterThan(0);
  });

  it('A3: mails one victim at most 5 times an hour of each kind, however many addresses ask, and answers only as sent or as limited', async () => {
    const victim = await owner();
    const victimId = (await stack.db.query<{ id: string }>(`SELECT id FROM "${stack.schemaOf('identity')}".users WHERE email = $1`, [victim.email])).rows[0].id;
    const total = sized(120, 1000);
    const rounds = 8;
    const mailsBefore = requestedMailsTo(victim.email).length;
    const shapes = new Map<string, Set<string>>();
    const senders = [
      (from: string) => call('GET', `/magic-link?email=${encodeURIComponent(victim.email)}`, { from }),
      (from: string) => call('POST', '/user/password-forgot', { from, body: { email: victim.email } }),
      (from: string) => call('POST', '/claim', { from, body: { code: randomCode(), email: victim.email } }),
    ];
    let sent = 0;
    // Rounds an hour's worth apart for the per-minute limit: between rounds the victim's sends move back 61 s.
    for (let round = 0; round < rounds; round += 1) {
      const batch = Array.from({ length: Math.ceil(total / rounds) }, (_, index) => index);
      for (let start = 0; start < batch.length; start += 10) {
        await Promise.all(
          batch.slice(start, start + 10).map(async (index) => {
            const kind = (sent + index) % senders.length;
            const answer = await senders[kind](`10.99.${round}.${start + index}`);
            const key = String(kind);
            if (!shapes.has(key)) shapes.set(key, new Set());
            shapes.get(key)?.add(`${answer.status} ${answer.text}`);
          }),
        );
      }
      sent += batch.length;
      await stack.db.query(`UPDATE "${stack.schemaOf('identity')}".mail_sends SET sent_at = sent_at - interval '61 seconds' WHERE user_id = $1`, [victimId]);
      // The gateway's budgets too: the minute's window ends, the hour's stays.
      await forgetMailBudgets(stack, 60_000);
    }
    // What the budgets allowed, the hour's 5 login codes and 5 reset links, is mailed; then nothing more arrives.
    await expectEventually(() => expect(requestedMailsTo(victim.email).length - mailsBefore).toBeGreaterThanOrEqual(10), { timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const reached = requestedMailsTo(victim.email).length - mailsBefore;
    for (const mail of stack.mail.mailsTo(victim.email)) {
      const code = /code=([0-9A-Z]{8})/.exec(mail.text)?.[1];
      if (code) remember(code);
      const reset = /reset-password\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
      if (reset) remember(reset);
    }
    // Login codes and reset links answer as sent (one body) or, past the address's budget, as limited (one body, the
    // same for an address without an account: tests/e2e/mail-budgets); the claim of a random code always alike.
    const shapesPerEndpoint = ['0', '1', '2'].map((kind) => shapes.get(kind)?.size ?? 0);
    const unexpected = [...(shapes.get('0') ?? []), ...(shapes.get('1') ?? [])].filter((shape) => !/^200 /.test(shape) && !/^429 .*RATE_LIMITED/.test(shape));
    reportFigure({
      id: 'A3',
      test: `${sent} login-code, forgot-password and claim requests for one victim address from ${sent} addresses, in ${rounds} rounds a minute apart (send times moved back)`,
      figure: `e-mails reaching the victim ${reached} (limit 5 an hour of each kind); answer shapes per endpoint ${shapesPerEndpoint.join('/')}`,
      size: `${sent} requests`,
      passed: reached === 10 && shapesPerEndpoint.join('/') === '2/2/1' && unexpected.length === 0,
    });
    expect(reached).toBe(10);
    expect(shapesPerEndpoint).toEqual([2, 2, 1]);
    expect(unexpected).toEqual([]);
  });

  it('A4: holds one address to its limit on a tag, a tag to its limit, and mails the owner once per conversation', async () => {
    const target = await owner();
    // One address floods one tag: 20 writes an hour, then 429.
    const one = clientAddress();
    const first = await finderWrites(target.code, 'flood 0', { from: one });
    const fromOne: number[] = [first.status];
    for (let index = 1; index < 30; index += 1) fromOne.push((await finderWrites(target.code, `flood ${index}`, { from: one, finderToken: first.body.finder_token })).status);
    const limitedFromOne = fromOne.filter((status) => status === 429).length;
    // Many addresses flood the same owner: in one conversation (a finder token passed around) and as new finders.
    const manyWrites = sized(210, 260);
    const statuses: number[] = [];
    const finders = 5;
    for (let start = 0; start < manyWrites; start += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, manyWrites - start) }, (_, offset) => start + offset).map((index) =>
          index < finders ? finderWrites(target.code, `new finder ${index}`) : finderWrites(target.code, `same conversation ${index}`, { finderToken: first.body.finder_token }),
        ),
      );
      statuses.push(...batch.map((answer) => answer.status));
    }
    const acceptedFromMany = statuses.filter((status) => status === 201).length;
    const limitedFromMany = statuses.filter((status) => status === 429).length;
    const conversations = 1 + finders;
    // One e-mail per conversation: each opened a window of its own.
    await expectEventually(() => expect(foundMailsTo(target.email).length).toBeGreaterThanOrEqual(conversations), { timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const ownerMails = foundMailsTo(target.email).length;
    const totalWrites = fromOne.length + statuses.length;
    reportFigure({
      id: 'A4',
      test: `one address floods one tag (30 writes); ${manyWrites} addresses flood one owner (${finders} new finders, the rest in one conversation)`,
      figure: `one address: ${fromOne.length - limitedFromOne} accepted, ${limitedFromOne} limited; many addresses: ${acceptedFromMany} accepted, ${limitedFromMany} limited (tag limit 200 an hour); owner e-mails ${ownerMails} for ${conversations} conversations and ${totalWrites} writes`,
      size: `${totalWrites} writes`,
      passed: limitedFromOne === 10 && ownerMails === conversations && fromOne.length - limitedFromOne + acceptedFromMany <= 200,
    });
    expect(limitedFromOne).toBe(10);
    expect(fromOne.length - limitedFromOne + acceptedFromMany).toBeLessThanOrEqual(200);
    expect(ownerMails).toBe(conversations);
  });

  it('S13: leaves no address, token or code in public answers, push payloads or any service log', () => {
    const texts = [
      ...publicTexts,
      ...stack.push.received.map((push) => ({ where: `push to ${push.endpoint.slice(-8)}`, text: push.text })),
      ...[...stack.services].map(([name, service]) => ({ where: `${name} log`, text: service.logs })),
    ];
    const found = findSecrets(secrets, texts);
    reportFigure({
      id: 'S13',
      test: 'sweep of public answers, push payloads and every service log after the security suite',
      figure: `e-mails, tokens, codes found ${found.length} (${secrets.size} secrets in ${publicTexts.length} public answers, ${stack.push.received.length} pushes, ${stack.services.size} logs)`,
      size: `${secrets.size} secrets`,
      passed: found.length === 0 && secrets.size > 20,
    });
    expect(found.slice(0, 20)).toEqual([]);
    expect(secrets.size).toBeGreaterThan(20);
  });
});

function multipart(code: string, bytes: number): Buffer {
  return Buffer.concat([
    Buffer.from(`--b\r\nContent-Disposition: form-data; name="code"\r\n\r\n${code}\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    Buffer.alloc(bytes, 0xff),
    Buffer.from('\r\n--b--\r\n'),
  ]);
}
