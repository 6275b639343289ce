import type { Logger as TypeOrmLogger } from 'typeorm';
import { requestContext } from '../context';
import { databaseMetrics } from '../metrics/metrics';

type WorkCounter = ReturnType<typeof databaseMetrics.queries.labels>;
const counters = new Map<string, WorkCounter>();

/** Counts one SQL statement against the RPC or consumer being handled: an increment, nothing that waits. */
export function countQuery(): void {
  const work = requestContext.current()?.work ?? 'background';
  let counter = counters.get(work);
  if (!counter) {
    counter = databaseMetrics.queries.labels(work);
    counters.set(work, counter);
  }
  counter.inc();
}

/**
 * TypeORM's logger of every service: counts the statements TypeORM sends (`homing_db_queries_total`), and logs
 * nothing, as TypeORM did before (query errors reach the caller as exceptions).
 */
export class QueryCountingLogger implements TypeOrmLogger {
  logQuery(): void {
    countQuery();
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}
