import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { BaseConfig } from './config';
import { Database, dataSourceOptions, type DatabaseOptions } from './database';
import { SERVICE_CONFIG } from './config';
import { HEALTH_DEPENDENCIES, HealthController, ShutdownState, type HealthDependency } from './health';
import { IdempotencyKeys } from './idempotency';
import { EVENT_CONSUMERS, EventConsumerRunner, type EventConsumer } from './inbox';
import { MetricsController } from './metrics';
import { JETSTREAM_SETTINGS, JetStreamStreams, jetStreamSettingsOf } from './nats/jetstream-streams';
import { NATS_OPTIONS, NatsClient } from './nats/nats.connection';
import { RpcClient } from './nats/rpc.client';
import { OUTBOX_OPTIONS, OutboxRelay, OutboxWriter } from './outbox';
import { REDIS_OPTIONS, RedisClient } from './redis';

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
    const imports: DynamicModule[] = [TerminusModule.forRoot({ logger: false })];
    const exports: Array<Provider | DynamicModule | symbol | Type> = [NatsClient, RpcClient, JetStreamStreams, ShutdownState, SERVICE_CONFIG];

    if (options.database) {
      imports.push(TypeOrmModule.forRoot(dataSourceOptions(options.database)));
      providers.push(Database, IdempotencyKeys);
      exports.push(Database, IdempotencyKeys);
      dependencies.push('database');
      if (options.outbox) {
        providers.push(
          { provide: OUTBOX_OPTIONS, useValue: { producer: options.service, schema: options.database.schema, databaseUrl: options.database.url } },
          OutboxWriter,
          OutboxRelay,
        );
        exports.push(OutboxWriter, OutboxRelay);
        dependencies.push('jetstream');
      }
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

/**
 * Providers that run the given durable JetStream consumers; put them in the module that owns the consumers.
 * The consumers get their own dependencies injected like any provider.
 */
export function eventConsumerProviders(...consumers: Array<Type<EventConsumer>>): Provider[] {
  return [
    ...consumers,
    { provide: EVENT_CONSUMERS, useFactory: (...instances: EventConsumer[]) => instances, inject: consumers },
    EventConsumerRunner,
  ];
}
