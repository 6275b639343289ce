// ARCHITECTURE §6: an account locks progressively from 10 failed logins in a row: 1 minute, then twice as long
// after each further failure, at most an hour. A successful login (or a new password) starts the count again.
export const LOCK_AFTER_FAILURES = 10;
const FIRST_LOCK_MS = 60_000;
export const MAX_LOCK_MS = 60 * 60_000;

/** How long an account is locked after its `failures`-th failed login in a row (0: not locked). */
export function lockDurationMs(failures: number): number {
  if (failures < LOCK_AFTER_FAILURES) return 0;
  return Math.min(FIRST_LOCK_MS * 2 ** Math.min(failures - LOCK_AFTER_FAILURES, 30), MAX_LOCK_MS);
}
