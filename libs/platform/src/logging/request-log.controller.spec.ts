import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { requestContext } from '../context';
import { createLogger } from './logger';
import { NestPinoLogger } from './nest-logger';
import { fastifyLogging, SLOW_REQUEST_MS } from './request-log.controller';

function capture(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>));
      done();
    },
  });
  return { lines, logger: createLogger({ service: 'svc', level, pretty: false }, destination) };
}

const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 };

describe('request logging by Fastify', () => {
  const appWith = (level: string) => {
    const { lines, logger } = capture(level);
    const app = Fastify({ ...fastifyLogging(logger), genReqId: () => 'corr-1' });
    app.get<{ Params: { code: string } }>('/api/v1/items/:code', async (request, reply) => reply.code(request.params.code.startsWith('Z') ? 404 : 200).send({}));
    app.get('/boom', async () => {
      throw new Error('boom');
    });
    app.get('/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, SLOW_REQUEST_MS + 50));
      return {};
    });
    app.get('/health/ready', async (_request, reply) => reply.code(503).send({}));
    app.get('/metrics', async () => 'x 1');
    return { app, lines };
  };

  it('logs nothing at info for a quick success, for probes or for scrapes, even a failing probe, nor for being ready', async () => {
    const { app, lines } = appWith('info');
    await app.listen({ port: 0, host: '127.0.0.1' });
    await app.inject({ url: '/api/v1/items/ABCDEFGHJKMNPQRS' });
    await app.inject({ url: '/health/ready' });
    await app.inject({ url: '/metrics' });
    await app.close();
    expect(lines).toEqual([]);
  });

  it('logs a 4xx once at warn, with the service, the correlation id and the tag code masked', async () => {
    const { app, lines } = appWith('info');
    await app.inject({ url: '/api/v1/items/ZBCD-EFGH-JKMN-PQRS' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: LEVEL.warn, service: 'svc', correlationId: 'corr-1', req: { method: 'GET', url: '/api/v1/items/…QRS' }, res: { statusCode: 404 } });
    expect(JSON.stringify(lines)).not.toContain('ZBCD');
  });

  it('logs a 5xx at error', async () => {
    const { app, lines } = appWith('info');
    await app.inject({ url: '/boom' });
    expect(lines.filter((line) => line.msg === 'request completed')).toEqual([expect.objectContaining({ level: LEVEL.error, res: { statusCode: 500 } })]);
  });

  it('logs a slow success at warn', async () => {
    const { app, lines } = appWith('info');
    await app.inject({ url: '/slow' });
    expect(lines).toEqual([expect.objectContaining({ level: LEVEL.warn, msg: 'slow request' })]);
  });

  it('logs every request at debug when asked to', async () => {
    const { app, lines } = appWith('debug');
    await app.inject({ url: '/api/v1/items/ABCDEFGHJKMNPQRS' });
    await app.inject({ url: '/health/ready' });
    expect(lines.map((line) => [line.level, line.res])).toEqual([
      [LEVEL.debug, { statusCode: 200 }],
      [LEVEL.debug, { statusCode: 503 }],
    ]);
  });
});

describe('the service logger', () => {
  it('redacts secrets and carries the correlation id of the work in hand', () => {
    const { lines, logger } = capture();
    requestContext.run({ correlationId: 'corr-2', causationId: null }, () => logger.info({ user: { email: 'a@b.c', password: 'x' } }, 'signed up'));
    expect(lines[0]).toMatchObject({ correlationId: 'corr-2', user: { email: '[redacted]', password: '[redacted]' } });
  });
});

describe("Nest's logger over pino", () => {
  it.each(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'NestMicroservice'])(
    'puts start-up lines of %s at debug',
    (context) => {
      const { lines, logger } = capture();
      new NestPinoLogger(logger).log('ItemsModule dependencies initialized', context);
      expect(lines).toEqual([]);
    },
  );

  it('keeps our own lines at info and a start-up problem at warn', () => {
    const { lines, logger } = capture();
    const nest = new NestPinoLogger(logger);
    nest.log('listening on :3002', 'items');
    nest.warn('Unsupported route path', 'RoutesResolver');
    expect(lines).toEqual([
      expect.objectContaining({ level: LEVEL.info, context: 'items', msg: 'listening on :3002' }),
      expect.objectContaining({ level: LEVEL.warn, context: 'RoutesResolver', msg: 'Unsupported route path' }),
    ]);
  });

  it('keeps structured fields, a stack and the text of errors', () => {
    const { lines, logger } = capture();
    const nest = new NestPinoLogger(logger);
    nest.error({ url: '/x' }, 'unhandled error', 'HttpExceptionFilter');
    nest.error('query failed', 'Error: query failed\n    at x', 'ItemsService');
    nest.error(new Error('down'), 'NatsClient');
    expect(lines).toEqual([
      expect.objectContaining({ level: LEVEL.error, context: 'HttpExceptionFilter', url: '/x', msg: 'unhandled error' }),
      expect.objectContaining({ level: LEVEL.error, context: 'ItemsService', stack: 'Error: query failed\n    at x', msg: 'query failed' }),
      expect.objectContaining({ level: LEVEL.error, context: 'NatsClient', msg: 'down', err: expect.objectContaining({ message: 'down' }) }),
    ]);
  });
});
