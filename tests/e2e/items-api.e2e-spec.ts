import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Client } from 'pg';
import type { HttpErrorBody, PublicItem } from '@homing/contracts';
import { expectEventually, runServiceCommand, type ServiceProcess, waitForEvent } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { startStack, type BackendService, type Stack } from '../support/stack';

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: { properties: Record<string, { maxLength?: number }> } }> } }>>;
}

// The whole stack as `npm start` runs it: every built service as its own process, driven over HTTP.
describe('items API through the gateway', () => {
  let stack: Stack;
  let api: string;
  let base: string;
  let seeded: string[];
  let nc: NatsConnection;
  let db: Client;
  let running: Map<string, ServiceProcess>;
  let namespace: string;
  const schemaOf = (service: BackendService) => stack.schemaOf(service);

  beforeAll(async () => {
    stack = await startStack({
      beforeStart: async ({ envOf }) => {
        seeded = (await runServiceCommand('items', ['seed-tags', '--count', '3'], envOf('items'))).trim().split('\n');
      },
    });
    ({ api, base, nc, db, namespace, services: running } = stack);
  });

  afterAll(() => stack?.stop());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  // A logged-in caller (a fresh user unless the headers name one).
  const postItem = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${api}/items`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...bearer(testAccessToken().token), ...headers } });

  it('reports every service ready', async () => {
    for (const [name, service] of running) {
      const response = await fetch(`http://127.0.0.1:${service.port}/health/ready`);
      expect({ name, status: response.status }).toEqual({ name, status: 200 });
    }
  });

  it('shows a seeded tag to whoever scans it, without owner details', async () => {
    const response = await fetch(`${api}/items/${seeded[0]}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ code: seeded[0], name: null, claimed_at: null, activated: false, is_owner: false, lost: false });
  });

  it('accepts the code as a person types it', async () => {
    const response = await fetch(`${api}/items/${seeded[1].toLowerCase().replace(/-/g, '')}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as PublicItem).code).toBe(seeded[1]);
  });

  it.each([
    ['an unknown code', 'ZZZZ-ZZZZ-ZZZZ-ZZZZ'],
    ['a malformed code', 'not-a-code'],
    ['an SQL-ish code', encodeURIComponent("' OR 1=1 --")],
    ['a URL-encoded code', 'ABCD%2DEFGH%2DJKMN%2DPQRS'],
    ['a NUL byte', '%00'],
    ['a 150-character code', 'A'.repeat(150)],
  ])('answers %s with the same 404 body', async (_, code) => {
    const response = await fetch(`${api}/items/${code}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' });
  });

  it('creates an item for its owner and messaging learns who owns it', async () => {
    const { token, userId: owner } = testAccessToken();
    const published = waitForEvent(nc, namespace, 'items.item.created.v1', (event) => event.data.ownerUserId === owner);
    const response = await postItem(JSON.stringify({ name: 'Red backpack' }), { ...bearer(token), 'x-correlation-id': 'e2e-create-1' });
    expect(response.status).toBe(201);
    const item = (await response.json()) as PublicItem;
    expect(item).toMatchObject({ name: 'Red backpack', activated: true, is_owner: true, user_id: owner });
    // The request's correlation id travels over RPC into the event it caused.
    expect((await published).correlationId).toBe('e2e-create-1');

    const anonymous = (await (await fetch(`${api}/items/${item.code}`)).json()) as PublicItem;
    expect(anonymous).not.toHaveProperty('user_id');
    expect(anonymous.is_owner).toBe(false);
    // The owner scanning their own tag is recognised by their token; the item's public route needs none.
    const own = (await (await fetch(`${api}/items/${item.code}`, { headers: bearer(token) })).json()) as PublicItem;
    expect(own).toMatchObject({ is_owner: true, user_id: owner });

    const code = item.code.replace(/-/g, '');
    await expectEventually(async () => {
      const { rows } = await db.query(`SELECT owner_user_id FROM "${schemaOf('messaging')}".item_owners WHERE item_code = $1`, [code]);
      expect(rows[0]?.owner_user_id).toBe(owner);
    });
  });

  it('refuses bad bodies with the contract error body, creating nothing', async () => {
    const cases: Array<[string, Response, number, string]> = [
      ['unknown field', await postItem(JSON.stringify({ name: 'x', user_id: randomUUID() })), 400, 'MALFORMED_REQUEST'],
      ['broken JSON', await postItem('{"name":'), 400, 'MALFORMED_REQUEST'],
      ['an array', await postItem('[]'), 400, 'MALFORMED_REQUEST'],
      ['prototype pollution', await postItem('{"__proto__":{"admin":true},"name":"x"}'), 400, 'MALFORMED_REQUEST'],
      ['empty name', await postItem(JSON.stringify({ name: '  ' })), 422, 'VALIDATION_ERROR'],
      ['1 MB body', await postItem(JSON.stringify({ name: 'x'.repeat(1024 * 1024) })), 413, 'PAYLOAD_TOO_LARGE'],
      ['text/plain', await postItem('{"name":"x"}', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a form', await postItem('name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['no token', await postItem(JSON.stringify({ name: 'x' }), { authorization: '' }), 401, 'UNAUTHORIZED'],
      // The header that named the caller before tokens existed proves nothing and is ignored.
      ['only X-User-Id', await postItem(JSON.stringify({ name: 'x' }), { authorization: '', 'x-user-id': randomUUID() }), 401, 'UNAUTHORIZED'],
      ['a forged token', await postItem(JSON.stringify({ name: 'x' }), { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJpZCI6IngifQ.' }), 401, 'UNAUTHORIZED'],
      ['a NUL byte in the name', await postItem(JSON.stringify({ name: 'x\u0000y' })), 422, 'VALIDATION_ERROR'],
      ['a line break in the name', await postItem(JSON.stringify({ name: 'x\r\nBcc: victim@example.com' })), 422, 'VALIDATION_ERROR'],
      ['deeply nested JSON', await postItem('['.repeat(5000) + ']'.repeat(5000)), 400, 'MALFORMED_REQUEST'],
    ];
    for (const [name, response, status, code] of cases) {
      const body = (await response.json()) as HttpErrorBody;
      expect({ name, status: response.status, code: body.response_code, message: typeof body.message }).toEqual({ name, status, code, message: 'string' });
    }
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "${schemaOf('items')}".items WHERE name LIKE 'x%'`);
    expect(rows[0].n).toBe(0);
    const validation = await (await postItem(JSON.stringify({ name: 'x'.repeat(101) }))).json();
    expect(validation).toEqual({ response_code: 'VALIDATION_ERROR', message: 'Input data contains errors.', validation: { name: 'max=100' } });
  });

  it('creates one item for requests sent twice with the same Idempotency-Key, answering both alike', async () => {
    const { token, userId: owner } = testAccessToken();
    const send = (name: string) => postItem(JSON.stringify({ name }), { ...bearer(token), 'idempotency-key': 'e2e-create-once-1' });
    const first = await send('Blue umbrella');
    const retry = await send('Blue umbrella');
    expect([first.status, retry.status]).toEqual([201, 201]);
    const [created, replayed] = (await Promise.all([first.json(), retry.json()])) as PublicItem[];
    expect(replayed).toEqual(created);
    // Another owner's request with the same key is their own.
    const other = await postItem(JSON.stringify({ name: 'Blue umbrella' }), { 'idempotency-key': 'e2e-create-once-1' });
    expect(((await other.json()) as PublicItem).code).not.toBe(created.code);
    // The same key with another body is a client bug, refused.
    const reused = await send('Green umbrella');
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as HttpErrorBody).response_code).toBe('IDEMPOTENCY_KEY_REUSED');
    const { rows } = await db.query(`SELECT code FROM "${schemaOf('items')}".items WHERE owner_user_id = $1`, [owner]);
    expect(rows.map((row: { code: string }) => row.code)).toEqual([created.code.replace(/-/g, '')]);
  });

  it('refuses a malformed Idempotency-Key with the contract error, creating nothing', async () => {
    const { token, userId: owner } = testAccessToken();
    for (const key of ['', 'has spaces', 'k'.repeat(129)]) {
      const response = await postItem(JSON.stringify({ name: 'Keys' }), { ...bearer(token), 'idempotency-key': key });
      expect({ key, status: response.status, body: await response.json() }).toEqual({
        key,
        status: 400,
        body: { response_code: 'MALFORMED_REQUEST', message: expect.stringContaining('Idempotency-Key') },
      });
    }
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "${schemaOf('items')}".items WHERE owner_user_id = $1`, [owner]);
    expect(rows[0].n).toBe(0);
  });

  it('answers unusable URLs in the contract format', async () => {
    for (const path of [`/items/${'A'.repeat(2000)}`, '/items/%E0%A4%A']) {
      const response = await fetch(`${api}${path}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ response_code: 'MALFORMED_REQUEST' });
    }
  });

  describe('security headers', () => {
    // What @fastify/helmet sent before the gateway set them from one precomputed object: none may go missing.
    const everyAnswer = {
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-frame-options': 'SAMEORIGIN',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    const headersOf = (response: Response, names: string[]) => Object.fromEntries(names.map((name) => [name, response.headers.get(name)]));
    // The finder page alone sends same-origin: its form posts must carry their Origin (no-referrer makes it `null`).
    const expectEveryAnswerHeader = (response: Response, referrerPolicy = 'no-referrer') =>
      expect(headersOf(response, Object.keys(everyAnswer))).toEqual({ ...everyAnswer, 'referrer-policy': referrerPolicy });

    it('sends them, a correlation id and no-store on API answers, and no page policy on JSON', async () => {
      const response = await fetch(`${api}/items/${seeded[0]}`, { headers: { 'x-correlation-id': 'e2e-correlation-1' } });
      expect(response.status).toBe(200);
      expectEveryAnswerHeader(response);
      expect(response.headers.get('x-correlation-id')).toBe('e2e-correlation-1');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-security-policy')).toBeNull();
    });

    it.each([
      ['an unknown code', '/items/ZZZZ-ZZZZ-ZZZZ-ZZZZ', 404],
      ['a request without a user', '/items', 401],
      ['an unusable URL the router refuses', '/items/%E0%A4%A', 400],
    ])('sends them on the error answer to %s', async (_, path, status) => {
      const response = await fetch(`${api}${path}`, path === '/items' ? { method: 'POST', body: '{"name":"x"}', headers: { 'content-type': 'application/json' } } : {});
      expect(response.status).toBe(status);
      expectEveryAnswerHeader(response);
      expect(response.headers.get('cache-control')).toBe('no-store');
    });

    it.each([
      ['the web app', '/', 200, 'no-referrer'],
      ['a page path of the web app', '/items', 200, 'no-referrer'],
      // The finder page is rendered by the gateway: an unknown code's page is its not-found page.
      ['the finder page of an unknown code', '/found/ABCD-EFGH-JKMN-PQRS', 404, 'same-origin'],
      ['Swagger UI', '/api/docs', 200, 'no-referrer'],
    ])('sends them and the Content-Security-Policy on %s', async (_, path, status, referrerPolicy) => {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toContain('text/html');
      expectEveryAnswerHeader(response, referrerPolicy);
      const policy = response.headers.get('content-security-policy') ?? '';
      for (const directive of ["default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'"]) {
        expect(policy.split(';')).toContain(directive);
      }
    });
  });

  it('serves the web shell, with page paths falling back to it and index.html never cached', async () => {
    // A path that is no page of the app gets the shell (its "Page not found") with 404, as an unknown tag's page does.
    const paths = [['/', 200], ['/items', 200], ['/login?ec=ABCD-EFGH-JKMN-PQRS', 200], ['/About/', 200], ['/found/ABCD-EFGH-JKMN-PQRS', 404], ['/no-such-page', 404], ['/favicon.ico', 404], ['/items/x?y=z', 404]] as const;
    for (const [path, status] of paths) {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toContain('<div id="root">');
    }
    const unknownApi = await fetch(`${api}/no-such-route`);
    expect(unknownApi.status).toBe(404);
    expect(((await unknownApi.json()) as HttpErrorBody).response_code).toBe('NOT_FOUND');
  });

  it('publishes an OpenAPI document generated from the routes', async () => {
    const document = (await (await fetch(`${base}/api/docs/openapi.json`)).json()) as OpenApiDocument;
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/v1/items/{code}', '/api/v1/items']));
    expect(document.paths['/api/v1/items'].post.requestBody.content['application/json'].schema.properties.name.maxLength).toBe(100);
  });

  it('requires a token on every route of the API except the ones meant for anonymous callers', async () => {
    // Deliberately a list: a route made public must be added here, by someone who meant it.
    const anonymousRoutes = [
      'GET /api/v1/items/{code}',
      'POST /api/v1/claim',
      'GET /api/v1/items/{code}/photo/{size}',
      'POST /api/v1/user/login',
      'POST /api/v1/user',
      'GET /api/v1/magic-link',
      'POST /api/v1/magic-link/login',
      'POST /api/v1/user/password-forgot',
      'POST /api/v1/user/password',
      'POST /api/v1/auth/refresh-token',
      // A log-in with a passkey: its options, then the browser's answer.
      'POST /api/v1/user/login/passkey-options',
      'POST /api/v1/user/login/passkey',
      'GET /qr/{code}',
      // The PNG of a tag follows the SVG's rule: anyone holding a code that exists.
      'GET /api/v1/items/{code}/qr/download',
      'POST /api/v1/items/{code}/set-finder',
      'POST /api/v1/items/{code}/messages',
      'GET /api/v1/items/{code}/messages',
      'GET /api/v1/items/{code}/messages/stream',
      // A finder's conversation in another browser: a resume link's exchange, and asking for one by e-mail.
      'POST /api/v1/items/{code}/finder-resume',
      'POST /api/v1/items/{code}/resume-link',
      // A finder deletes their own conversation by finder token, not log-in.
      'DELETE /api/v1/items/{code}/conversation',
      // Web push: the key the browser subscribes with, and a finder's subscription (by finder token, not log-in).
      'GET /api/v1/push/vapid-public-key',
      'POST /api/v1/items/{code}/push/register',
      // The finder page records its visit; a finder shares a place by finder token.
      'POST /api/v1/items/{code}/scans',
      'POST /api/v1/items/{code}/location',
      // The safe hand-over: a conversation's state and consent (finder by token), and the finder's hand-over code.
      'GET /api/v1/items/{code}/conversation',
      'POST /api/v1/items/{code}/contact-consent',
      'POST /api/v1/items/{code}/handover',
      // An invitation's link: what it offers, and its acceptance by someone who may not have an account yet.
      'GET /api/v1/invitations/{token}',
      'POST /api/v1/invitations/{token}/accept',
    ];
    const document = (await (await fetch(`${base}/api/docs/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const walked: string[] = [];
    const guardRefusal = ((await (await fetch(`${api}/user/me`)).json()) as HttpErrorBody).message;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) {
        const route = `${method.toUpperCase()} ${path}`;
        const url = `${base}${path.replace(/\{[^}]+\}/g, 'ABCD-EFGH-JKMN-PQRS')}`;
        const response = await fetch(url, { method: method.toUpperCase(), ...(method === 'get' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } }) });
        walked.push(route);
        // The guard's refusal; a public route may still answer 401 itself (refresh without a token says why).
        const refusedByGuard = response.status === 401 && ((await response.json()) as HttpErrorBody).message === guardRefusal;
        expect({ route, anonymous: !refusedByGuard }).toEqual({ route, anonymous: anonymousRoutes.includes(route) });
      }
    }
    expect(walked).toEqual(expect.arrayContaining(anonymousRoutes));
    expect(walked.length).toBeGreaterThan(anonymousRoutes.length);
  });

  it('exposes Prometheus metrics by route pattern, never by tag code', async () => {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('homing_http_request_duration_seconds_count{service="gateway",method="GET",route="/api/v1/items/:code",status="200"}');
    expect(metrics).toContain('homing_rpc_client_duration_seconds_count{service="gateway",subject="items.rpc.get-public-many",outcome="ok"}');
    expect(metrics).not.toContain(seeded[0]);
  });

  it('answers 503 with Retry-After while items is down (but a tag scanned lately from the gateway’s memory), and recovers when it is back', async () => {
    const items = running.get('items')!;
    expect((await fetch(`${api}/items/${seeded[0]}`)).status).toBe(200);
    await items.stop();
    // Never scanned before: only items could answer.
    const response = await fetch(`${api}/items/${seeded[2]}`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toMatchObject({ response_code: 'SERVICE_UNAVAILABLE' });
    expect((await fetch(`${api}/items/${seeded[0]}`)).status).toBe(200);
    await items.start();
    await expectEventually(async () => expect((await fetch(`${api}/items/${seeded[2]}`)).status).toBe(200));
  });
});
