export const OUTBOX_OPTIONS = Symbol('OUTBOX_OPTIONS');

export interface OutboxOptions {
  /** The producing service, written into every envelope. */
  producer: string;
  /** The database schema holding this service's outbox table. */
  schema: string;
  /** Connection string for the relay's LISTEN connection. */
  databaseUrl: string;
  /** The service's PostgreSQL `application_name`; the LISTEN session is `<it> outbox listener` in `pg_stat_activity`. */
  applicationName?: string;
}

/** The relay's LISTEN session's `application_name`, so an operator (and a test) can tell it from the pool's sessions. */
export function outboxListenerName(applicationName: string | undefined): string | undefined {
  return applicationName === undefined ? undefined : `${applicationName} outbox listener`;
}

export function outboxChannel(schema: string): string {
  return `outbox_${schema}`;
}
