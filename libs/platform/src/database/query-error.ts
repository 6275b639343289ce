/** A failed query, told without what it carried. */
export class DatabaseQueryError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'DatabaseQueryError';
  }
}

/**
 * TypeORM's QueryFailedError carries the query's parameters (e-mail addresses, password hashes, finder addresses)
 * and PostgreSQL's `detail` (`Key (lower(email))=(…) already exists`), and an unexpected error is logged whole. Such
 * an error is replaced by one with PostgreSQL's message and SQLSTATE only: the message names the constraint, never a
 * value, and the code still tells "database away" (503, retried) from a bug. Other errors are returned as they are.
 */
export function scrubQueryError(error: unknown): unknown {
  if (!(error instanceof Error) || !('parameters' in error || 'driverError' in error || 'detail' in error)) return error;
  const code = (error as { code?: unknown }).code ?? (error as { driverError?: { code?: unknown } }).driverError?.code;
  return new DatabaseQueryError(error.message, typeof code === 'string' ? code : undefined);
}

/**
 * PostgreSQL's foreign_key_violation (SQLSTATE 23503), from pg or through a scrubbed query error: a row written for
 * something deleted since the writer read it (our code never writes a dangling reference on purpose).
 */
export function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === '23503';
}

/**
 * A text PostgreSQL cannot store: character_not_in_repertoire (SQLSTATE 22021, a NUL character in a text parameter)
 * or untranslatable_character (22P05, a `\u0000` in JSON stored as jsonb). Request schemas refuse control characters
 * in what people type; a field that slips through is the caller's bad input, answered as such, not a bug's 500.
 */
export function isUnstorableText(error: unknown): boolean {
  const code = sqlStateOf(error);
  return code === '22021' || code === '22P05';
}

/**
 * A transaction PostgreSQL gave up on for another's sake: deadlock_detected (40P01), serialization_failure (40001) or
 * lock_not_available (55P03). It was rolled back whole, so the same request again finds things as they are now.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = sqlStateOf(error);
  return code !== undefined && TRANSIENT_CONFLICTS.has(code);
}

const TRANSIENT_CONFLICTS = new Set(['40P01', '40001', '55P03']);

/** PostgreSQL's SQLSTATE of a failed query: pg's error, a scrubbed one, or TypeORM's (on its `driverError`). */
function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code ?? (error as { driverError?: { code?: unknown } } | null)?.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}
