import Fastify from 'fastify';
import { servePlainHandlers } from './plain-handlers';

describe('servePlainHandlers', () => {
  it('answers a route with the plain handler in place of the one it was registered with, GET and HEAD', async () => {
    const fastify = Fastify();
    servePlainHandlers(fastify, { 'GET /items/:code': async (request) => ({ plain: (request.params as { code: string }).code }) });
    fastify.get('/items/:code', async () => ({ framework: true }));
    fastify.get('/other', async () => ({ framework: true }));
    await fastify.ready();
    expect((await fastify.inject({ method: 'GET', url: '/items/ABC' })).json()).toEqual({ plain: 'ABC' });
    const head = await fastify.inject({ method: 'HEAD', url: '/items/ABC' });
    expect({ status: head.statusCode, length: head.headers['content-length'] }).toEqual({ status: 200, length: String(JSON.stringify({ plain: 'ABC' }).length) });
    expect((await fastify.inject({ method: 'GET', url: '/other' })).json()).toEqual({ framework: true });
    await fastify.close();
  });

  it('fails start-up when a route it names is never registered', async () => {
    const fastify = Fastify();
    servePlainHandlers(fastify, { 'GET /items/:code': async () => ({}) });
    fastify.get('/items/:id', async () => ({}));
    await expect(fastify.ready()).rejects.toThrow('plain handlers for routes Nest never registered: GET /items/:code');
  });
});
