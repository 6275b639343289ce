import { inspect } from 'node:util';
import type { Msg } from '@nats-io/transport-node';
import { QueryFailedError } from 'typeorm';
import type { NatsClient } from './nats.connection';
import { decodeJson, encodeJson } from './rpc.codec';
import { NatsRpcServer } from './rpc.server';

const FINDER_EMAIL = 'finder@example.com';

// A handler that fails the way a repository does when PostgreSQL refuses a statement: TypeORM's error carries the
// statement's parameters and PostgreSQL's detail.
function failingQuery(code: string): QueryFailedError {
  const driverError = Object.assign(new Error('new row violates check constraint "conversations_finder_email_check"'), {
    code,
    detail: `Failing row contains (${FINDER_EMAIL}).`,
  });
  return new QueryFailedError('UPDATE conversations SET finder_email = $2 WHERE id = $1', ['a-conversation', FINDER_EMAIL], driverError);
}

async function answer(thrown: Error) {
  const server = new NatsRpcServer(
    {} as NatsClient,
    'messaging',
    new Map([
      [
        'identity.rpc.get-user',
        async () => {
          throw thrown;
        },
      ],
    ]),
  );
  const logged: unknown[] = [];
  const logger = (server as unknown as { logger: Record<'error' | 'warn', (...args: unknown[]) => void> }).logger;
  logger.error = (...args) => void logged.push(...args);
  logger.warn = (...args) => void logged.push(...args);
  const respond = jest.fn();
  const msg = { data: encodeJson({ userId: '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10' }), headers: undefined, respond } as unknown as Msg;
  (server as unknown as { receive(pattern: string, msg: Msg): void }).receive('identity.rpc.get-user', msg);
  await server.close();
  return { logged: inspect(logged, { depth: 10, showHidden: true }) + JSON.stringify(logged), reply: decodeJson(respond.mock.calls[0][0]) };
}

describe('NatsRpcServer', () => {
  it('refuses to start with a Nest @MessagePattern handler, which it would never call', async () => {
    const server = new NatsRpcServer({} as NatsClient, 'messaging', new Map());
    server.addHandler('identity.rpc.get-user', () => Promise.resolve({}));
    const failed = await new Promise((resolve) => void server.listen(resolve));
    expect(String(failed)).toContain('@MessagePattern handlers, which this transport does not call (use @RpcHandler): identity.rpc.get-user');
  });

  it('logs a failed query of any service without the values it carried', async () => {
    const { logged, reply } = await answer(failingQuery('23514'));
    expect(logged).toContain('conversations_finder_email_check');
    expect(logged).not.toContain(FINDER_EMAIL);
    expect(reply).toMatchObject({ status: 500, response_code: 'INTERNAL_ERROR' });
  });

  it('answers 404 to a row written for something deleted meanwhile (a foreign key finding nothing), logged as a warning', async () => {
    const { logged, reply } = await answer(failingQuery('23503'));
    expect(logged).not.toContain(FINDER_EMAIL);
    expect(reply).toEqual({ status: 404, response_code: 'NOT_FOUND', message: 'What this request refers to no longer exists.' });
  });

  it.each(['22021', '22P05'])('answers 400 to a text PostgreSQL cannot store (SQLSTATE %s: a NUL character), logged as a warning', async (code) => {
    const { logged, reply } = await answer(failingQuery(code));
    expect(logged).not.toContain(FINDER_EMAIL);
    expect(reply).toEqual({ status: 400, response_code: 'MALFORMED_REQUEST', message: 'The request holds characters that cannot be stored (such as NUL).' });
  });

  it.each(['40P01', '40001', '55P03'])('answers 503 to a transaction that gave way to a concurrent one (SQLSTATE %s), logged as a warning', async (code) => {
    const { logged, reply } = await answer(failingQuery(code));
    expect(logged).not.toContain(FINDER_EMAIL);
    expect(reply).toEqual({ status: 503, response_code: 'SERVICE_UNAVAILABLE', message: 'Another change to the same thing came at the same moment. Try again.' });
  });

  it('still answers 503 to a query that failed because the database is away', async () => {
    const { logged, reply } = await answer(failingQuery('57P01'));
    expect(logged).not.toContain(FINDER_EMAIL);
    expect(reply).toMatchObject({ status: 503, response_code: 'SERVICE_UNAVAILABLE' });
  });
});
