export const OUTBOX_OPTIONS = Symbol('OUTBOX_OPTIONS');

export interface OutboxOptions {
  /** The producing service, written into every envelope. */
  producer: string;
  /** The database schema holding this service's outbox table. */
  schema: string;
  /** Connection string for the relay's LISTEN connection. */
  databaseUrl: string;
}

export function outboxChannel(schema: string): string {
  return `outbox_${schema}`;
}
