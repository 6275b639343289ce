import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { ClaimResponse } from '@homing/contracts';
import { expectEventually, runServiceCommand } from '@homing/testing';
import { reportFigure, sized } from '../fault/harness/figures';
import { startStack, type Stack } from '../support/stack';

// B1 (../shared/RELIABILITY.md): property-based fuzzing of every operation of the gateway's OpenAPI document, without
// a token, with garbage tokens and with real ones (an owner's, a finder's). Whatever arrives, the answer is never a
// 5xx, never carries a stack trace or SQL, and every error is in the HTTP contract's format.
interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyProperties: string[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>>;
}

/** Lone surrogates cannot be percent-encoded; they still go out in bodies and headers. */
const wellFormed = (value: string) => value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

const LEAKS = [/\bat [\w.<>]+ \(.*:\d+:\d+\)/, /QueryFailedError|syntax error at or near|relation "[^"]+"|duplicate key value/i, /\bSELECT\b.+\bFROM\b/i, /node_modules\//];

// Strings that have broken servers before: path tricks, SQL, NUL and control bytes, odd Unicode, prototype keys.
const nasty = fc.constantFrom(
  '',
  ' ',
  '../../etc/passwd',
  "' OR '1'='1",
  '1; DROP TABLE items;--',
  '\u0000',
  'a\u0000b',
  '\r\nSet-Cookie: x=1',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  '%00',
  '%2e%2e%2f',
  '\u202e\u0301\ud83d\ude00',
  '\ud800',
  '__proto__',
  'constructor',
  'x'.repeat(100_000),
  'ABCD-EFGH-JKLM-NPQR',
  '-1',
  '1e309',
  'NaN',
);
const anyString = fc.oneof(nasty, fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 50 }));
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  anyString,
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.array(anyString, { maxLength: 5 }),
  // Deep nesting.
  fc.constant(JSON.parse('['.repeat(2000) + ']'.repeat(2000)) as unknown),
);

describe('B1: fuzzing every operation of the API', () => {
  let stack: Stack;
  let operations: Operation[];
  const tokens: Record<string, string | undefined> = {};
  let code: string;
  let sacrificialCode: string;

  beforeAll(async () => {
    let tags: string[] = [];
    stack = await startStack({
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } },
      beforeStart: async ({ envOf }) => {
        tags = (await runServiceCommand('items', ['seed-tags', '--count', '4'], envOf('items'))).trim().split('\n');
      },
    });
    [code, sacrificialCode] = tags;
    const claim = async (tag: string) => {
      const response = await fetch(`${stack.api}/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.200.0.1' },
        body: JSON.stringify({ code: tag, email: `fuzz-${randomUUID()}@example.test` }),
      });
      const body = (await response.json()) as ClaimResponse;
      return body.response_code === 'NEW_USER_REGISTERED' ? body.login_token : undefined;
    };
    tokens.owner = await claim(code);
    // Destructive operations (delete, reset, logout) get the token of an owner whose loss does not matter.
    tokens.sacrificial = await claim(sacrificialCode);
    // Messaging learns of the claim by its event; until then the tag is unknown to it and a message is 404.
    await expectEventually(async () => {
      const unread = await fetch(`${stack.api}/user/items/${code}/unread-count`, { headers: { authorization: `Bearer ${tokens.owner}` } });
      expect(unread.status).toBe(200);
    });
    const message = await fetch(`${stack.api}/items/${code}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.200.0.2' },
      body: JSON.stringify({ content: 'Found it.' }),
    });
    tokens.finder = ((await message.json()) as { finder_token?: string }).finder_token;
    expect(tokens).toEqual({ owner: expect.any(String), sacrificial: expect.any(String), finder: expect.any(String) });

    const document = (await (await fetch(`${stack.base}/api/docs/openapi.json`)).json()) as OpenApiDocument;
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        pathParams: (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        queryParams: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        bodyProperties: Object.keys(operation.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
      })),
    );
  });

  afterAll(() => stack?.stop());

  it('answers no fuzzed request with a 5xx, a stack trace or SQL', async () => {
    // Full size: 10,000 requests in all (RELIABILITY.md), spread evenly over the operations.
    const runsPerOperation = sized(25, Math.ceil(10_000 / operations.length));
    const findings: string[] = [];
    let requests = 0;
    const statuses = new Map<number, number>();
    expect(operations.length).toBeGreaterThan(20);

    for (const operation of operations) {
      const started = Date.now();
      const destructive = operation.method === 'DELETE' || /logout|reset/.test(operation.path);
      const request = fc.record({
        pathValues: fc.array(fc.oneof(fc.constant(destructive ? sacrificialCode : code), anyString), { minLength: operation.pathParams.length, maxLength: operation.pathParams.length }),
        query: fc.dictionary(fc.oneof(fc.constantFrom(...operation.queryParams, 'after', 'codes', 'size', '__proto__'), fc.string({ maxLength: 10 })), anyString, { maxKeys: 4 }),
        body: fc.oneof(
          fc.dictionary(fc.oneof(fc.constantFrom(...operation.bodyProperties, 'owner_user_id', 'is_admin', 'user_id', '__proto__', 'constructor'), fc.string({ maxLength: 10 })), anyJson, { maxKeys: 6 }),
          anyJson,
          fc.constant(undefined),
        ),
        rawBody: fc.option(fc.constantFrom('{', '{"a":', 'null', '[]', 'not json', '\u0000'), { nil: undefined }),
        contentType: fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined),
        auth: fc.constantFrom('none', 'owner', 'finder', 'garbage', 'expired-shape'),
      });

      await fc.assert(
        fc.asyncProperty(request, async (input) => {
          let path = operation.path;
          operation.pathParams.forEach((name, index) => (path = path.replace(`{${name}}`, encodeURIComponent(wellFormed(input.pathValues[index] ?? '')))));
          const query = new URLSearchParams(Object.entries(input.query)).toString();
          const headers: Record<string, string> = { 'x-forwarded-for': `10.${(requests >> 16) & 255}.${(requests >> 8) & 255}.${requests & 255}` };
          if (input.contentType) headers['content-type'] = input.contentType;
          const owner = destructive ? tokens.sacrificial : tokens.owner;
          if (input.auth === 'owner' && owner) headers.authorization = `Bearer ${owner}`;
          if (input.auth === 'finder' && tokens.finder) headers['x-finder-token'] = tokens.finder;
          if (input.auth === 'garbage') headers.authorization = 'Bearer eyJhbGciOiJub25lIn0.eyJpZCI6IjEifQ.';
          if (input.auth === 'expired-shape') headers['x-finder-token'] = 'x'.repeat(5000);
          const hasBody = !['GET', 'HEAD'].includes(operation.method);
          const body = hasBody ? (input.rawBody ?? (input.body === undefined ? undefined : JSON.stringify(input.body))) : undefined;
          requests += 1;
          const url = `${stack.base}${path}${query ? `?${query}` : ''}`;
          let status = 0;
          let text = '';
          try {
            const response = await fetch(url, { method: operation.method, headers, body, signal: AbortSignal.timeout(15_000) });
            status = response.status;
            // A stream (server-sent events) stays open: its headers are the answer.
            if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) await response.body?.cancel();
            else text = await response.text();
          } catch (error) {
            findings.push(`${operation.method} ${operation.path}: no answer (${(error as Error).message})`);
            return;
          }
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status >= 500) findings.push(`${operation.method} ${url.slice(0, 200)} → ${status} ${text.slice(0, 200)}`);
          if (LEAKS.some((pattern) => pattern.test(text))) findings.push(`${operation.method} ${url.slice(0, 200)} leaks: ${text.slice(0, 300)}`);
          const isJson = text.startsWith('{');
          if (status >= 400 && path.startsWith('/api/') && isJson && !('response_code' in (JSON.parse(text) as object))) {
            findings.push(`${operation.method} ${operation.path} → ${status} without response_code: ${text.slice(0, 200)}`);
          }
        }),
        { numRuns: runsPerOperation, endOnFailure: true },
      );
      // A slow operation under fuzzing is a finding of its own (an unbounded input reaching expensive work).
      if (process.env.HOMING_FUZZ_TRACE) console.log(`${operation.method} ${operation.path}: ${Date.now() - started} ms`);
    }

    // Mass assignment: whatever fields were sent, the owner still owns the item and is not an admin.
    const me = await fetch(`${stack.api}/user/me`, { headers: { authorization: `Bearer ${tokens.owner}` } });
    if (me.status === 200) expect(((await me.json()) as { is_admin?: boolean }).is_admin ?? false).toBe(false);
    const owned = await stack.db.query(`SELECT count(*)::int AS count FROM "${stack.schemaOf('items')}".items WHERE code = $1 AND owner_user_id IS NOT NULL`, [code.replace(/-/g, '')]);

    const serverErrors = [...statuses.entries()].filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0);
    reportFigure({
      id: 'B1',
      test: `property-based fuzzing of ${operations.length} API operations (no token, garbage, owner, finder)`,
      figure: `5xx ${serverErrors} of ${requests}; leaks ${findings.filter((finding) => finding.includes('leaks')).length}; findings ${findings.length}`,
      size: `${runsPerOperation} requests per operation`,
      passed: findings.length === 0,
    });
    // The worst first: server errors, then leaks, then contract breaches.
    const rank = (finding: string) => (/→ 5\d\d/.test(finding) ? 0 : finding.includes('leaks') ? 1 : 2);
    expect([...findings].sort((a, b) => rank(a) - rank(b)).slice(0, 20)).toEqual([]);
    expect(owned.rows[0].count).toBe(1);
  });
});
