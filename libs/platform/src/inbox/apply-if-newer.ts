import type { Transaction } from '../database/database';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function quoted(identifier: string): string {
  if (!IDENTIFIER.test(identifier)) throw new Error(`not a plain SQL identifier: ${identifier}`);
  return `"${identifier}"`;
}

/** One projection row for one aggregate, at the aggregate's version. */
export interface ProjectionWrite {
  /** The projection table, in the service's schema; it has an integer `version` column. */
  table: string;
  /** The row's primary key columns, e.g. `{ item_code: 'ABCD…' }`. */
  key: Record<string, unknown>;
  /** The aggregate's version the event carries (EventEnvelope.version). */
  version: number;
  /** Columns to write. A deletion writes a tombstone (e.g. `deleted_at`) rather than removing the row, so a
   * late event of the deleted aggregate finds a newer version and cannot bring it back. */
  values: Record<string, unknown>;
}

/**
 * Writes a projection row only if the event is newer than what the row holds. Events of one aggregate can arrive
 * in any order (relay replicas, naks, redeliveries), so "last delivered wins" would let a late event undo a rename,
 * a reset or a delete; "highest version wins" cannot. Returns true if the row was written.
 */
export async function applyIfNewer(transaction: Transaction, write: ProjectionWrite): Promise<boolean> {
  const keyColumns = Object.keys(write.key);
  const valueColumns = Object.keys(write.values).filter((column) => !(column in write.key));
  if (keyColumns.length === 0) throw new Error('applyIfNewer needs a key');
  const columns = [...keyColumns, ...valueColumns, 'version'].map(quoted);
  const parameters = [...keyColumns.map((column) => write.key[column]), ...valueColumns.map((column) => write.values[column]), write.version];
  const table = quoted(write.table);
  const updates = [...valueColumns, 'version'].map((column) => `${quoted(column)} = EXCLUDED.${quoted(column)}`);
  // An INSERT answers its RETURNING rows whichever way it is run; the transaction is the caller's (a ledger consumer's).
  const rows: unknown[] = await transaction.query(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${parameters.map((_, index) => `$${index + 1}`).join(', ')})
     ON CONFLICT (${keyColumns.map(quoted).join(', ')}) DO UPDATE SET ${updates.join(', ')}
     WHERE ${table}."version" < EXCLUDED."version"
     RETURNING 1 AS applied`,
    parameters,
  );
  return rows.length > 0;
}
