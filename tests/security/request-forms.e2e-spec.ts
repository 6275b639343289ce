import { request as httpRequest } from 'node:http';
import { testAccessToken } from '../support/access-tokens';
import { ownedItem } from '../support/api';
import { startStack, type Stack } from '../support/stack';

// Rules that go by a request's path or route, whatever form the request takes: the API's no-store on personal answers
// for a target in absolute form (RFC 9112 §3.2.2: a server must accept `GET http://host/api/v1/…`; such answers went
// out without any Cache-Control), and the unknown-code limit on the public photo route (its unknown codes answered
// 404 NOT_FOUND, never counted, so a guesser could probe codes there without end).
describe('rules whatever form a request takes', () => {
  let stack: Stack;
  let port: number;
  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1' } } });
    port = Number(new URL(stack.base).port);
  }, 180_000);
  afterAll(() => stack?.stop());

  const get = (target: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: target, method: 'GET', headers }, (res) => {
        let data = '';
        res.on('data', (chunk) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: data }));
      });
      req.on('error', reject);
      req.end();
    });

  it('answers an owner’s item list and their own scan with no-store whatever the request-target form', async () => {
    const token = testAccessToken().token;
    const { code } = await ownedItem(stack, token);
    const auth = { authorization: `Bearer ${token}` };
    for (const path of ['/api/v1/user/items', `/api/v1/items/${code}`, `/api/v1/user/items/${code}`]) {
      const originForm = await get(path, auth);
      const absoluteForm = await get(`http://localhost:${port}${path}`, auth);
      expect({ path, status: absoluteForm.status, body: absoluteForm.body }).toEqual({ path, status: originForm.status, body: originForm.body });
      expect(originForm.headers['cache-control']).toBe('no-store');
      expect({ path, cacheControl: absoluteForm.headers['cache-control'] }).toEqual({ path, cacheControl: 'no-store' });
    }
    // An unknown path under the API is its JSON 404, not a page of the web app, in either form.
    const unknown = await get(`http://localhost:${port}/api/v1/no-such-route`, auth);
    expect({ status: unknown.status, json: unknown.headers['content-type'] }).toEqual({ status: 404, json: expect.stringContaining('application/json') });
  });

  it('counts photo lookups of unknown codes as misses, after which the address is refused everywhere', async () => {
    const guesser = { 'x-forwarded-for': '203.0.113.66' };
    for (let guess = 0; guess < 30; guess += 1) {
      const response = await fetch(`${stack.api}/items/ZZZZ-ZZZZ-ZZZZ-${2000 + guess}/photo/normal`, { headers: guesser });
      expect(response.status).toBe(404);
      await response.arrayBuffer();
    }
    const next = await fetch(`${stack.api}/items/ZZZZ-ZZZZ-YYYY-0001`, { headers: guesser });
    const photo = await fetch(`${stack.api}/items/ZZZZ-ZZZZ-YYYY-0002/photo/normal`, { headers: guesser });
    expect({ scan: next.status, photo: photo.status, photoBody: await photo.json() }).toEqual({ scan: 429, photo: 429, photoBody: expect.objectContaining({ response_code: 'RATE_LIMITED' }) });
  });
});
