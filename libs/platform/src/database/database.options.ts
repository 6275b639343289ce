import type { Logger } from '@nestjs/common';
import type { PoolConfig } from 'pg';
import type { DataSourceOptions, MixedList, EntitySchema } from 'typeorm';
import { EventHandlerFailures1766400000000 } from './event-handler-failures.migration';
import { IdempotencyAnswersSealed1764910000000 } from './idempotency-answers-sealed.migration';
import { OutboxSetAside1765700000000 } from './outbox-set-aside.migration';
import { IdempotencyKeys1763856000001 } from './idempotency-keys.migration';
import { OutboxAndProcessedEvents1763856000000 } from './platform-tables.migration';
import { QueryCountingLogger } from './query-counter';

// RELIABILITY.md: a query that runs longer than this is cancelled, so a slow database fails requests fast.
export const STATEMENT_TIMEOUT_MS = 5000;

// Well below the RPC timeout (2 s): when PostgreSQL cannot be reached, or every connection of the pool is busy
// (pg bounds that wait with the same setting), a handler fails with "unavailable" (503, retry) while its caller
// still waits, instead of the caller timing out (504) on work that goes on after it gave up, holding a slot of
// the RPC server's in-flight cap.
export const DATABASE_CONNECT_TIMEOUT_MS = 1000;

export interface DatabaseOptions {
  url: string;
  /** The schema this service owns; every table and the migrations table live in it. */
  schema: string;
  /** Shown in pg_stat_activity. */
  applicationName: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: Function[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: MixedList<Function | string | EntitySchema>;
  poolSize?: number;
  logger?: Pick<Logger, 'error'>;
}

/**
 * The pg pool of a service's Database: its own schema as the search path (raw SQL needs no prefix), a statement
 * timeout, a bounded wait for a connection.
 */
export function poolOptions(options: DatabaseOptions): PoolConfig {
  return {
    connectionString: options.url,
    application_name: options.applicationName,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    options: sessionOptions(options.schema),
  };
}

/** What every connection of a service sets first: its schema as the search path, and the statement timeout. */
function sessionOptions(schema: string): string {
  return `-c search_path=${schema} -c statement_timeout=${STATEMENT_TIMEOUT_MS}`;
}

/**
 * TypeORM options for a service's migrations (`main.js migrate`): its own schema (also the search path), the shared
 * outbox, processed_events, event_handler_failures and idempotency_keys tables first, a statement timeout, and error
 * handlers on the pool so a database restart is an error to log, not a crashed process. Every statement is counted
 * (QueryCountingLogger).
 */
export function dataSourceOptions(options: DatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    applicationName: options.applicationName,
    entities: options.entities ?? [],
    migrations: [OutboxAndProcessedEvents1763856000000, IdempotencyKeys1763856000001, IdempotencyAnswersSealed1764910000000, OutboxSetAside1765700000000, EventHandlerFailures1766400000000, ...options.migrations],
    migrationsTableName: 'migrations',
    migrationsRun: false,
    synchronize: false,
    poolSize: options.poolSize ?? 10,
    connectTimeoutMS: DATABASE_CONNECT_TIMEOUT_MS,
    extra: {
      options: sessionOptions(options.schema),
      idleTimeoutMillis: 30_000,
    },
    logger: new QueryCountingLogger(),
    poolErrorHandler: (error: Error) => options.logger?.error(`database pool error: ${error.message}`),
  };
}
