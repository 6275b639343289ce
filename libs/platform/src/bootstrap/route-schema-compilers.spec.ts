import Fastify from 'fastify';
import { routeSchemaCompilers } from './route-schema-compilers';

describe('routeSchemaCompilers', () => {
  it('validates and serializes a route that declares schemas as Fastify’s defaults do', async () => {
    const fastify = Fastify({ schemaController: { compilersFactory: routeSchemaCompilers } });
    fastify.post(
      '/echo',
      {
        schema: {
          body: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 5 } } },
          response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
        },
      },
      async (request) => ({ ...(request.body as object), secret: 'left out by the response schema' }),
    );

    const valid = await fastify.inject({ method: 'POST', url: '/echo', payload: { name: 'keys' } });
    expect(valid.statusCode).toBe(200);
    expect(valid.json()).toEqual({ name: 'keys' });

    const invalid = await fastify.inject({ method: 'POST', url: '/echo', payload: { name: 'too long' } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'FST_ERR_VALIDATION' });
    await fastify.close();
  });
});
