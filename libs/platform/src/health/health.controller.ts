import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { ModuleRef } from '@nestjs/core';
import { JetStreamStreams } from '../nats/jetstream-streams';
import { NatsClient } from '../nats/nats.connection';
import { RedisClient } from '../redis/redis.client';
import { DATABASE_PROBE, type DatabaseProbe } from './database-probe';
import { ShutdownState } from './shutdown-state';

export const HEALTH_DEPENDENCIES = Symbol('HEALTH_DEPENDENCIES');

export type HealthDependency = 'database' | 'nats' | 'jetstream' | 'redis';

/** A condition of a service's own that /health/ready checks besides its dependencies answering. */
export interface ReadinessCheck {
  /** The key /health/ready reports it under, e.g. `redis_durability`. */
  readonly name: string;
  /** Resolves when ready; rejects with the reason (shown in /health/ready) when not. */
  check(): Promise<void>;
}

/** Provide a `ReadinessCheck[]` under this token, in any module of the service, to add it to /health/ready. */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

const CHECK_TIMEOUT_MS = 1500;

type CheckState = { status: 'up' } | { status: 'down'; message: string };

/**
 * `/health/ready`'s answer, in the shape Kubernetes probes and operators have read since the first release (that of
 * @nestjs/terminus, which it replaced: B8): every check under `details`, the passing ones under `info`, the failing
 * ones under `error`.
 */
export interface Readiness {
  status: 'ok' | 'error';
  info: Record<string, CheckState>;
  error: Record<string, CheckState>;
  details: Record<string, CheckState>;
}

async function checked(name: string, probe: () => Promise<void>): Promise<[string, CheckState]> {
  try {
    await withTimeout(probe(), name);
    return [name, { status: 'up' }];
  } catch (error) {
    return [name, { status: 'down', message: (error as Error).message }];
  }
}

function readinessOf(results: Array<[string, CheckState]>): Readiness {
  const details = Object.fromEntries(results);
  const info = Object.fromEntries(results.filter(([, state]) => state.status === 'up'));
  const error = Object.fromEntries(results.filter(([, state]) => state.status === 'down'));
  return { status: Object.keys(error).length > 0 ? 'error' : 'ok', info, error, details };
}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    work,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS).unref()),
  ]);
}

/**
 * `/health/live`: the process runs (restart it if not). `/health/ready`: it can do its work now, i.e. every
 * dependency it uses answers and it is not shutting down (take it out of rotation if not).
 */
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly shutdown: ShutdownState,
    private readonly moduleRef: ModuleRef,
    @Inject(HEALTH_DEPENDENCIES) private readonly dependencies: HealthDependency[],
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(): Promise<Readiness> {
    if (this.shutdown.shuttingDown) throw new ServiceUnavailableException({ status: 'shutting_down' });
    const results = await Promise.all([
      ...this.dependencies.map((dependency) => checked(dependency, () => this.probe(dependency))),
      ...this.readinessChecks().map((readiness) => checked(readiness.name, () => readiness.check())),
    ]);
    const readiness = readinessOf(results);
    if (readiness.status === 'error') throw new ServiceUnavailableException(readiness);
    return readiness;
  }

  private extraChecks?: ReadinessCheck[];

  private readinessChecks(): ReadinessCheck[] {
    if (!this.extraChecks) {
      try {
        this.extraChecks = this.moduleRef.get<ReadinessCheck[]>(READINESS_CHECKS, { strict: false });
      } catch {
        // Most services have none.
        this.extraChecks = [];
      }
    }
    return this.extraChecks;
  }

  private async probe(dependency: HealthDependency): Promise<void> {
    switch (dependency) {
      case 'database':
        await this.moduleRef.get<DatabaseProbe>(DATABASE_PROBE, { strict: false }).rows('SELECT 1');
        return;
      case 'nats': {
        const nats = this.moduleRef.get(NatsClient, { strict: false });
        if (!nats.isConnected()) throw new Error('not connected');
        await nats.nc.flush();
        return;
      }
      case 'jetstream': {
        const nats = this.moduleRef.get(NatsClient, { strict: false });
        if (!nats.isConnected()) throw new Error('not connected');
        await (await nats.jsm()).getAccountInfo();
        // Streams declared and matching their configuration; a drift that cannot be fixed in place keeps the
        // service unready, naming it, rather than running on a stream it does not expect.
        await this.moduleRef.get(JetStreamStreams, { strict: false }).ensure();
        return;
      }
      case 'redis':
        await this.moduleRef.get(RedisClient, { strict: false }).ping();
        return;
    }
  }
}
