import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '@homing/platform';

export interface LoginCodeState {
  usedAt: Date | null;
  attempts: number;
  expired: boolean;
}

/** The only place that reads or writes the login_codes table. */
@Injectable()
export class LoginCodesRepository {
  constructor(private readonly database: Database) {}

  /** The user's one live code: a new one replaces (supersedes) the one before. */
  async replace(tx: Transaction | undefined, code: { userId: string; locator: string; codeHash: string; ttlMs: number }): Promise<void> {
    await this.database.affected(
      `INSERT INTO login_codes (user_id, locator, code_hash, expires_at)
       VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
       ON CONFLICT (user_id) DO UPDATE
         SET locator = excluded.locator, code_hash = excluded.code_hash, expires_at = excluded.expires_at,
             attempts = 0, used_at = NULL, created_at = now()`,
      [code.userId, code.locator, code.codeHash, code.ttlMs],
      tx,
    );
  }

  /**
   * Uses the code if it is live: one conditional UPDATE, so of concurrent redemptions exactly one wins (the
   * others wait for its row lock, then find it used). The user's id, or null. With `userId`, only that user's code.
   */
  async consume(tx: Transaction | undefined, codeHash: string, maxAttempts: number, userId?: string): Promise<string | null> {
    const row = await this.database.one<{ userId: string }>(
      `UPDATE login_codes SET used_at = now()
       WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now() AND attempts < $2 AND ($3::uuid IS NULL OR user_id = $3::uuid)
       RETURNING user_id AS "userId"`,
      [codeHash, maxAttempts, userId ?? null],
      tx,
    );
    return row?.userId ?? null;
  }

  async stateOf(tx: Transaction | undefined, codeHash: string): Promise<LoginCodeState | null> {
    const row = await this.database.one<LoginCodeState>(
      'SELECT used_at AS "usedAt", attempts, expires_at <= now() AS "expired" FROM login_codes WHERE code_hash = $1',
      [codeHash],
      tx,
    );
    return row ?? null;
  }

  /**
   * Counts a try against the live codes that begin like it (its locator) and are not it, before any code is checked:
   * of tries sent at once, each is counted before its own check, so no more than the limit are checked against a
   * code before it burns (counted after a refusal, every try of a burst was checked before the first count landed).
   */
  async countTry(tx: Transaction | undefined, codeHash: string, locator: string): Promise<void> {
    await this.database.affected(
      'UPDATE login_codes SET attempts = attempts + 1 WHERE locator = $1 AND code_hash <> $2 AND used_at IS NULL AND expires_at > now()',
      [locator, codeHash],
      tx,
    );
  }
}
