import { ServiceUnavailableException } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { RedisClient } from '../redis/redis.client';
import { DATABASE_PROBE } from './database-probe';
import { HealthController, READINESS_CHECKS, type HealthDependency, type ReadinessCheck } from './health.controller';
import { ShutdownState } from './shutdown-state';

/** A controller whose dependencies answer as given: a rejection is a dependency that is down. */
function controllerWith(probes: { database?: Promise<unknown>; redis?: Promise<unknown> }, extra: ReadinessCheck[] = [], shutdown = new ShutdownState()) {
  const providers = new Map<unknown, unknown>([
    [DATABASE_PROBE, { rows: () => probes.database }],
    [RedisClient, { ping: () => probes.redis }],
    [READINESS_CHECKS, extra],
  ]);
  const moduleRef = { get: (token: unknown) => providers.get(token) } as unknown as ModuleRef;
  const dependencies = Object.keys(probes) as HealthDependency[];
  return new HealthController(shutdown, moduleRef, dependencies);
}

async function refusal(answer: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  const error = await answer.then(
    () => {
      throw new Error('answered 200');
    },
    (refused: unknown) => refused,
  );
  if (!(error instanceof ServiceUnavailableException)) throw error;
  return { status: error.getStatus(), body: error.getResponse() };
}

describe('HealthController /health/ready', () => {
  it('is ready when every dependency and readiness check answers, each listed', async () => {
    const answer = await controllerWith({ database: Promise.resolve([]), redis: Promise.resolve('PONG') }, [{ name: 'redis_durability', check: () => Promise.resolve() }]).ready();
    expect(answer).toEqual({
      status: 'ok',
      info: { database: { status: 'up' }, redis: { status: 'up' }, redis_durability: { status: 'up' } },
      error: {},
      details: { database: { status: 'up' }, redis: { status: 'up' }, redis_durability: { status: 'up' } },
    });
  });

  it('answers 503 naming what is down and why, with what is up beside it', async () => {
    const controller = controllerWith({ database: Promise.resolve([]), redis: Promise.reject(new Error('Connection is closed.')) }, [
      { name: 'redis_durability', check: () => Promise.reject(new Error('appendonly is off')) },
    ]);
    expect(await refusal(controller.ready())).toEqual({
      status: 503,
      body: {
        status: 'error',
        info: { database: { status: 'up' } },
        error: { redis: { status: 'down', message: 'Connection is closed.' }, redis_durability: { status: 'down', message: 'appendonly is off' } },
        details: {
          database: { status: 'up' },
          redis: { status: 'down', message: 'Connection is closed.' },
          redis_durability: { status: 'down', message: 'appendonly is off' },
        },
      },
    });
  });

  it('answers 503 once shutdown has begun, whatever its dependencies say', async () => {
    const shutdown = new ShutdownState();
    shutdown.onModuleDestroy();
    expect(await refusal(controllerWith({ database: Promise.resolve([]) }, [], shutdown).ready())).toEqual({ status: 503, body: { status: 'shutting_down' } });
  });

  it('counts a dependency that does not answer in time as down', async () => {
    jest.useFakeTimers();
    try {
      const refused = refusal(controllerWith({ database: new Promise(() => undefined) }).ready());
      await jest.advanceTimersByTimeAsync(1500);
      expect(await refused).toMatchObject({ status: 503, body: { error: { database: { status: 'down', message: 'database did not answer in 1500 ms' } } } });
    } finally {
      jest.useRealTimers();
    }
  });
});
