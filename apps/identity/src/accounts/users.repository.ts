import { Injectable } from '@nestjs/common';
import type { UserLanguage } from '@homing/contracts';
import { updateReturning, type Transaction } from '../database/transactions.repository';

export interface UserRow {
  id: string;
  email: string;
  passwordHash: string | null;
  language: UserLanguage;
  isAdmin: boolean;
  failedLogins: number;
  lockedUntil: Date | null;
  /** The database's clock when the row was read: lock and expiry decisions use one clock. */
  now: Date;
}

const COLUMNS = `id, email, password_hash AS "passwordHash", language, is_admin AS "isAdmin", failed_logins AS "failedLogins",
  locked_until AS "lockedUntil", now() AS "now"`;

/** The only place that reads or writes the users table. */
@Injectable()
export class UsersRepository {
  /** `email` is already lower-cased by the contract's schema. */
  async findByEmail(tx: Transaction, email: string): Promise<UserRow | null> {
    const rows: UserRow[] = await tx.query(`SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email]);
    return rows[0] ?? null;
  }

  async findById(tx: Transaction, id: string): Promise<UserRow | null> {
    const rows: UserRow[] = await tx.query(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /**
   * Inserts a user; null if the address is taken. Concurrent inserts of one new address wait for each other on
   * the unique index: exactly one creates the user.
   */
  async insert(tx: Transaction, user: { id: string; email: string; passwordHash: string | null; language: UserLanguage }): Promise<UserRow | null> {
    const rows: UserRow[] = await tx.query(
      `INSERT INTO users (id, email, password_hash, language) VALUES ($1, lower($2), $3, $4)
       ON CONFLICT ((lower(email))) DO NOTHING
       RETURNING ${COLUMNS}`,
      [user.id, user.email, user.passwordHash, user.language],
    );
    return rows[0] ?? null;
  }

  /** Counts a failed login and returns the failures in a row so far. */
  async countFailedLogin(tx: Transaction, id: string): Promise<number> {
    const rows = await updateReturning<{ failedLogins: number }>(
      tx,
      'UPDATE users SET failed_logins = failed_logins + 1 WHERE id = $1 RETURNING failed_logins AS "failedLogins"',
      [id],
    );
    return rows[0]?.failedLogins ?? 0;
  }

  async lockFor(tx: Transaction, id: string, durationMs: number): Promise<void> {
    // Never shortens a lock: a concurrent failure counted earlier may arrive later with a shorter duration.
    await tx.query(
      `UPDATE users SET locked_until = greatest(locked_until, now() + $2 * interval '1 millisecond') WHERE id = $1`,
      [id, durationMs],
    );
  }

  async clearFailedLogins(tx: Transaction, id: string): Promise<void> {
    await tx.query('UPDATE users SET failed_logins = 0, locked_until = NULL WHERE id = $1 AND (failed_logins <> 0 OR locked_until IS NOT NULL)', [id]);
  }

  /** Sets the password hash; a new password also lifts a lock. False if there is no such user. */
  async setPasswordHash(tx: Transaction, id: string, passwordHash: string): Promise<boolean> {
    const rows = await updateReturning<{ id: string }>(
      tx,
      'UPDATE users SET password_hash = $2, failed_logins = 0, locked_until = NULL WHERE id = $1 RETURNING id',
      [id, passwordHash],
    );
    return rows.length > 0;
  }

  async setLanguage(tx: Transaction, id: string, language: UserLanguage): Promise<UserRow | null> {
    const rows = await updateReturning<UserRow>(tx, `UPDATE users SET language = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, language]);
    return rows[0] ?? null;
  }

  /** Locks the user's row until the transaction ends, so decisions about them (e-mail limits) take turns. */
  async lock(tx: Transaction, id: string): Promise<void> {
    await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [id]);
  }
}
