import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { DATABASE_PROBE } from '../health/database-probe';
import { IdempotencyKeys } from '../idempotency/idempotency-keys';
import { OUTBOX_OPTIONS } from '../outbox/outbox.options';
import { OutboxRelay } from '../outbox/outbox.relay';
import { OutboxWriter } from '../outbox/outbox.writer';
import { Database } from './database';
import type { DatabaseOptions } from './database.options';

/**
 * A service's PostgreSQL database (a pg pool on its schema), its idempotency keys and, with `outbox`, its outbox writer
 * and relay. PlatformModule loads this file only for a service that has a database, so pg stays off the gateway's
 * start path.
 */
@Module({})
export class DatabasePlatformModule {
  static forService(options: { service: string; database: DatabaseOptions; outbox?: boolean }): DynamicModule {
    const providers: Provider[] = [
      { provide: Database, useFactory: () => new Database(options.database) },
      IdempotencyKeys,
      { provide: DATABASE_PROBE, useExisting: Database },
    ];
    const exports: Array<Provider | symbol | typeof Database> = [Database, IdempotencyKeys, DATABASE_PROBE];
    if (options.outbox) {
      providers.push({ provide: OUTBOX_OPTIONS, useValue: { producer: options.service, schema: options.database.schema, databaseUrl: options.database.url, applicationName: options.database.applicationName } }, OutboxWriter, OutboxRelay);
      exports.push(OutboxWriter, OutboxRelay);
    }
    return { module: DatabasePlatformModule, global: true, providers, exports };
  }
}
