import Fastify from 'fastify';
import { CONTENT_SECURITY_POLICY, IMAGE_CONTENT_SECURITY_POLICY, pathOfTarget, registerSecurityHeaders, SECURITY_HEADERS } from './security-headers';

describe('security headers', () => {
  const app = Fastify();
  registerSecurityHeaders(app, '/api/v1/');
  app.get('/api/v1/item', async () => ({ code: 'X' }));
  app.get('/api/v1/cached', async (_request, reply) => reply.header('cache-control', 'public, max-age=60').send({ code: 'X' }));
  app.get('/page', async (_request, reply) => reply.type('text/html; charset=utf-8').send('<!doctype html>'));
  app.get('/qr.svg', async (_request, reply) => reply.type('image/svg+xml').send('<svg/>'));
  afterAll(() => app.close());

  it('puts every header on a JSON answer, with no-store and without a page policy', async () => {
    const response = await app.inject({ url: '/api/v1/item' });
    expect(response.headers).toMatchObject({ ...SECURITY_HEADERS, 'cache-control': 'no-store' });
    expect(response.headers).not.toHaveProperty('content-security-policy');
  });

  it('puts them on answers Fastify makes itself, such as its 404', async () => {
    const response = await app.inject({ url: '/api/v1/none' });
    expect(response.statusCode).toBe(404);
    expect(response.headers).toMatchObject({ ...SECURITY_HEADERS, 'cache-control': 'no-store' });
  });

  it('keeps a cache policy an API route chose', async () => {
    expect((await app.inject({ url: '/api/v1/cached' })).headers['cache-control']).toBe('public, max-age=60');
  });

  it.each([
    ['/page', CONTENT_SECURITY_POLICY],
    ['/qr.svg', IMAGE_CONTENT_SECURITY_POLICY],
  ])('adds its Content-Security-Policy to the document %s and leaves its caching alone', async (url, policy) => {
    const response = await app.inject({ url });
    expect(response.headers).toMatchObject({ ...SECURITY_HEADERS, 'content-security-policy': policy });
    expect(response.headers).not.toHaveProperty('cache-control');
  });

  it('lets nothing load or run in an SVG image opened on its own, and sandboxes it', () => {
    expect(IMAGE_CONTENT_SECURITY_POLICY.split(';')).toEqual(["default-src 'none'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'none'", 'sandbox']);
  });

  it('reads the path of a target in origin form and in absolute form (which escaped the API’s no-store)', () => {
    expect(pathOfTarget('/api/v1/user/items?x=1')).toBe('/api/v1/user/items?x=1');
    expect(pathOfTarget('http://localhost:8080/api/v1/user/items')).toBe('/api/v1/user/items');
    expect(pathOfTarget('https://homing.example')).toBe('/');
    expect(pathOfTarget('*')).toBe('/');
  });

  it('keeps the policy helmet enforced: no plugins, no framing, no foreign scripts', () => {
    expect(CONTENT_SECURITY_POLICY.split(';')).toEqual(
      expect.arrayContaining(["default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'"]),
    );
  });
});
