import { Injectable } from '@nestjs/common';
import type { User, UserLanguage } from '@homing/contracts';
import { Database, prepared, type Transaction } from '@homing/platform';

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
const FIND_BY_ID = prepared(`SELECT ${COLUMNS} FROM users WHERE id = $1`);
// Every mail to a user asks for their address by id (B3): what the answer carries and no more (no password hash leaves
// the database, no time is parsed), kept prepared on each connection.
const CONTACT_BY_ID = prepared(`SELECT id, email, language, password_hash IS NOT NULL AS "hasPassword" FROM users WHERE id = $1`);

/** What another service may know of a user to write to them: `identity.rpc.get-user`'s answer. */
export type UserContact = User & { hasPassword: boolean };

/** The only place that reads or writes the users table. */
@Injectable()
export class UsersRepository {
  constructor(private readonly database: Database) {}

  /** `email` is already lower-cased by the contract's schema. */
  async findByEmail(tx: Transaction | undefined, email: string): Promise<UserRow | null> {
    return (await this.database.one<UserRow>(`SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email], tx)) ?? null;
  }

  async findById(tx: Transaction | undefined, id: string): Promise<UserRow | null> {
    return (await this.database.one<UserRow>(FIND_BY_ID, [id], tx)) ?? null;
  }

  async contactOf(id: string): Promise<UserContact | null> {
    return (await this.database.one<UserContact>(CONTACT_BY_ID, [id])) ?? null;
  }

  /**
   * Inserts a user; null if the address is taken. Concurrent inserts of one new address wait for each other on
   * the unique index: exactly one creates the user.
   */
  async insert(tx: Transaction | undefined, user: { id: string; email: string; passwordHash: string | null; language: UserLanguage }): Promise<UserRow | null> {
    const row = await this.database.one<UserRow>(
      `INSERT INTO users (id, email, password_hash, language) VALUES ($1, lower($2), $3, $4)
       ON CONFLICT ((lower(email))) DO NOTHING
       RETURNING ${COLUMNS}`,
      [user.id, user.email, user.passwordHash, user.language],
      tx,
    );
    return row ?? null;
  }

  /** Counts a failed login and returns the failures in a row so far. */
  async countFailedLogin(tx: Transaction | undefined, id: string): Promise<number> {
    const row = await this.database.one<{ failedLogins: number }>(
      'UPDATE users SET failed_logins = failed_logins + 1 WHERE id = $1 RETURNING failed_logins AS "failedLogins"',
      [id],
      tx,
    );
    return row?.failedLogins ?? 0;
  }

  async lockFor(tx: Transaction | undefined, id: string, durationMs: number): Promise<void> {
    // Never shortens a lock: a concurrent failure counted earlier may arrive later with a shorter duration.
    await this.database.affected(
      `UPDATE users SET locked_until = greatest(locked_until, now() + $2 * interval '1 millisecond') WHERE id = $1`,
      [id, durationMs],
      tx,
    );
  }

  async clearFailedLogins(tx: Transaction | undefined, id: string): Promise<void> {
    await this.database.affected(
      'UPDATE users SET failed_logins = 0, locked_until = NULL WHERE id = $1 AND (failed_logins <> 0 OR locked_until IS NOT NULL)',
      [id],
      tx,
    );
  }

  /** Sets the password hash; a new password also lifts a lock. False if there is no such user. */
  async setPasswordHash(tx: Transaction | undefined, id: string, passwordHash: string): Promise<boolean> {
    const updated = await this.database.affected(
      'UPDATE users SET password_hash = $2, failed_logins = 0, locked_until = NULL WHERE id = $1',
      [id, passwordHash],
      tx,
    );
    return updated > 0;
  }

  async setLanguage(tx: Transaction | undefined, id: string, language: UserLanguage): Promise<UserRow | null> {
    return (await this.database.one<UserRow>(`UPDATE users SET language = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, language], tx)) ?? null;
  }

  /** Grants or revokes admin rights by address; the user's id, or null if no user has this address. */
  async setAdminByEmail(tx: Transaction | undefined, email: string, isAdmin: boolean): Promise<string | null> {
    const row = await this.database.one<{ id: string }>('UPDATE users SET is_admin = $2 WHERE lower(email) = lower($1) RETURNING id', [email, isAdmin], tx);
    return row?.id ?? null;
  }

  /** Deletes the user; their sessions, login code, password links and mail-limit records go with the row (cascade). */
  async delete(tx: Transaction | undefined, id: string): Promise<boolean> {
    return (await this.database.affected('DELETE FROM users WHERE id = $1', [id], tx)) > 0;
  }

  /**
   * The user's password hash and lock as they are now, their row locked until the transaction ends: a log-in opens its
   * session only for the hash it verified, on an account not locked since (a new password, or failures counted while
   * it hashed, update this row, so they take turns with it). Null when there is no such user.
   */
  async lockForLogin(tx: Transaction, id: string): Promise<{ passwordHash: string | null; failedLogins: number; locked: boolean } | null> {
    return (
      (await this.database.one<{ passwordHash: string | null; failedLogins: number; locked: boolean }>(
        `SELECT password_hash AS "passwordHash", failed_logins AS "failedLogins", coalesce(locked_until > now(), false) AS locked
         FROM users WHERE id = $1 FOR UPDATE`,
        [id],
        tx,
      )) ?? null
    );
  }

  /**
   * Locks the user's row until the transaction ends, so decisions about them (e-mail limits) take turns; false when
   * there is no such user (an account erased since the caller read it).
   */
  async lock(tx: Transaction | undefined, id: string): Promise<boolean> {
    return (await this.database.rows('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [id], tx)).length > 0;
  }
}
