import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '@homing/platform';

export type PasswordTokenPurpose = 'reset' | 'set';

export interface PasswordTokenRow {
  userId: string;
  purpose: PasswordTokenPurpose;
  usedAt: Date | null;
  expired: boolean;
}

/** The only place that reads or writes the password_tokens table. */
@Injectable()
export class PasswordTokensRepository {
  constructor(private readonly database: Database) {}

  async insert(tx: Transaction | undefined, token: { tokenHash: string; userId: string; purpose: PasswordTokenPurpose; ttlMs: number }): Promise<void> {
    await this.database.affected(
      `INSERT INTO password_tokens (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
      [token.tokenHash, token.userId, token.purpose, token.ttlMs],
      tx,
    );
  }

  /** The token, locked until the transaction ends when `forUpdate`: two uses of one link take turns. */
  async find(tx: Transaction | undefined, tokenHash: string, { forUpdate = false } = {}): Promise<PasswordTokenRow | null> {
    const row = await this.database.one<PasswordTokenRow>(
      `SELECT user_id AS "userId", purpose, used_at AS "usedAt", expires_at <= now() AS "expired"
       FROM password_tokens WHERE token_hash = $1 ${forUpdate ? 'FOR UPDATE' : ''}`,
      [tokenHash],
      tx,
    );
    return row ?? null;
  }

  /** Uses up every open link of the user: once the password is set, older links must not set it again. */
  async useAllOfUser(tx: Transaction | undefined, userId: string): Promise<void> {
    await this.database.affected('UPDATE password_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL', [userId], tx);
  }
}
