import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import type { BaseConfig } from './config/config';
import { SERVICE_CONFIG } from './config/inject-config';
import type { DatabaseOptions } from './database/database.options';
import { HEALTH_DEPENDENCIES, HealthController, type HealthDependency } from './health/health.controller';
import { ShutdownState } from './health/shutdown-state';
import { MetricsController } from './metrics/metrics.controller';
import { JETSTREAM_SETTINGS, JetStreamStreams, jetStreamSettingsOf } from './nats/jetstream-streams';
import { NATS_OPTIONS, NatsClient } from './nats/nats.connection';
import { RpcClient } from './nats/rpc.client';
import { REDIS_OPTIONS, RedisClient } from './redis/redis.client';

export interface PlatformOptions {
  /** The service's name: log field, NATS connection name, RPC queue group, event producer. */
  service: string;
  /** The service's whole typed config: every provider injects it with `@InjectConfig()`. */
  config: BaseConfig;
  /** Present for services that own a schema. */
  database?: DatabaseOptions;
  /** Record events in this service's outbox and relay them to JetStream. Needs `database`. */
  outbox?: boolean;
  redisUrl?: string;
}

/**
 * What every Homing service has: logs, metrics, health, NATS (RPC client and JetStream), and, as it uses them,
 * its PostgreSQL schema with the outbox, and Redis. Global, so feature modules just inject what they need.
 */
@Module({})
export class PlatformModule {
  static forService(options: PlatformOptions): DynamicModule {
    const dependencies: HealthDependency[] = ['nats'];
    const providers: Provider[] = [
      { provide: NATS_OPTIONS, useValue: { url: options.config.NATS_URL, namespace: options.config.NATS_NAMESPACE, service: options.service } },
      NatsClient,
      RpcClient,
      { provide: JETSTREAM_SETTINGS, useValue: jetStreamSettingsOf(options.config) },
      JetStreamStreams,
      ShutdownState,
      { provide: SERVICE_CONFIG, useValue: options.config },
    ];
    const imports: Array<Promise<DynamicModule>> = [];
    const exports: Array<Provider | DynamicModule | symbol | Type> = [NatsClient, RpcClient, JetStreamStreams, ShutdownState, SERVICE_CONFIG];

    if (options.database) {
      // Loaded only here: pg, the idempotency keys and the outbox, for the services that have a schema (B8).
      const database = { service: options.service, database: options.database, outbox: options.outbox };
      imports.push(import('@homing/platform/database-module').then(({ DatabasePlatformModule }) => DatabasePlatformModule.forService(database)));
      dependencies.push('database');
      if (options.outbox) dependencies.push('jetstream');
    }
    if (options.redisUrl) {
      providers.push({ provide: REDIS_OPTIONS, useValue: { url: options.redisUrl, service: options.service } }, RedisClient);
      exports.push(RedisClient);
      dependencies.push('redis');
    }
    providers.push({ provide: HEALTH_DEPENDENCIES, useValue: [...new Set(dependencies)] });

    return { module: PlatformModule, global: true, imports, providers, exports, controllers: [HealthController, MetricsController] };
  }
}
