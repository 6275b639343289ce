import { CORRELATION_HEADER } from '@homing/platform';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { sendTagged, type TaggedBody } from './etag';
import { PrebuiltAnswer, prebuiltHead, writeWhole } from './prebuilt-answer';
import { registerSecurityHeaders } from './security-headers';

// A prebuilt answer skips Fastify's reply and its onSend hook: its headers must be exactly what that path sends.
describe('PrebuiltAnswer', () => {
  const svg = { body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), etag: '"svg-1"', headers: { 'cache-control': 'public, max-age=604800', 'content-type': 'image/svg+xml; charset=utf-8' } };
  const text = { body: Buffer.from('PHN2Zy8+'), etag: '"b64-1"', headers: { 'cache-control': 'public, max-age=604800', 'content-type': 'text/plain; charset=utf-8' } };
  const json = { body: Buffer.from('{"code":"X"}'), etag: '"json-1"', headers: { 'content-type': 'application/json; charset=utf-8' } };
  const answered: string[] = [];
  const app = Fastify();
  registerSecurityHeaders(app, '/api/v1/');
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(CORRELATION_HEADER, request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    answered.push(`${request.method} ${request.url} ${reply.statusCode}`);
    done();
  });
  const both = (path: string, tagged: TaggedBody & { body: Buffer }, isApi: boolean) => {
    const prebuilt = new PrebuiltAnswer(tagged.etag, tagged.headers, tagged.body, isApi);
    app.get(`${path}/usual`, (request: FastifyRequest, reply: FastifyReply) => sendTagged(reply, request.headers['if-none-match'], tagged));
    app.get(`${path}/prebuilt`, (request: FastifyRequest, reply: FastifyReply) => prebuilt.send(request, reply));
  };
  both('/qr', svg, false);
  both('/b64', text, false);
  both('/api/v1/tagged', json, true);
  // The scan's way: a JSON text made per item, no ETag.
  const jsonHead = prebuiltHead({ 'content-type': json.headers['content-type'] }, true);
  app.get('/api/v1/json/usual', (_request, reply) => reply.type(json.headers['content-type']).send(json.body.toString()));
  app.get('/api/v1/json/prebuilt', (request, reply) => writeWhole(request, reply, jsonHead, json.body.toString()));
  afterAll(() => app.close());

  /** Every header but the date, which the two answers may be sent a second apart. */
  const headersOf = (response: { headers: Record<string, unknown> }) => {
    const { date: _date, ...rest } = response.headers;
    return rest;
  };

  it.each([
    ['an SVG document', '/qr'],
    ['a text image', '/b64'],
    ['an API answer with an ETag', '/api/v1/tagged'],
    ['an API answer in JSON text', '/api/v1/json'],
  ])('sends %s with the same status, headers and body as Fastify’s reply, for GET and HEAD', async (_name, path) => {
    for (const method of ['GET', 'HEAD'] as const) {
      const usual = await app.inject({ method, url: `${path}/usual`, headers: { [CORRELATION_HEADER]: 'abc' } });
      const prebuilt = await app.inject({ method, url: `${path}/prebuilt`, headers: { [CORRELATION_HEADER]: 'abc' } });
      expect(prebuilt.statusCode).toBe(200);
      expect(prebuilt.statusCode).toBe(usual.statusCode);
      expect({ ...headersOf(prebuilt), [CORRELATION_HEADER]: '' }).toEqual({ ...headersOf(usual), [CORRELATION_HEADER]: '' });
      expect(prebuilt.headers[CORRELATION_HEADER]).toBeTruthy();
      expect([method, prebuilt.rawPayload.toString()]).toEqual([method, usual.rawPayload.toString()]);
    }
    expect(answered).toEqual(expect.arrayContaining([`GET ${path}/prebuilt 200`, `HEAD ${path}/prebuilt 200`]));
  });

  it('answers 304 to its ETag as Fastify’s reply does, and 200 to another', async () => {
    for (const ifNoneMatch of [svg.etag, `W/${svg.etag}`, `"other", ${svg.etag}`, '*']) {
      const usual = await app.inject({ url: '/qr/usual', headers: { 'if-none-match': ifNoneMatch } });
      const prebuilt = await app.inject({ url: '/qr/prebuilt', headers: { 'if-none-match': ifNoneMatch } });
      expect(prebuilt.statusCode).toBe(304);
      expect({ ...headersOf(prebuilt), [CORRELATION_HEADER]: '' }).toEqual({ ...headersOf(usual), [CORRELATION_HEADER]: '' });
      expect(prebuilt.body).toBe('');
    }
    expect((await app.inject({ url: '/qr/prebuilt', headers: { 'if-none-match': '"other"' } })).statusCode).toBe(200);
  });
});
