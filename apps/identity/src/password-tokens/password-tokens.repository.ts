import { Injectable } from '@nestjs/common';
import type { Transaction } from '../database/transactions.repository';

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
  async insert(tx: Transaction, token: { tokenHash: string; userId: string; purpose: PasswordTokenPurpose; ttlMs: number }): Promise<void> {
    await tx.query(
      `INSERT INTO password_tokens (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
      [token.tokenHash, token.userId, token.purpose, token.ttlMs],
    );
  }

  /** The token, locked until the transaction ends when `forUpdate`: two uses of one link take turns. */
  async find(tx: Transaction, tokenHash: string, { forUpdate = false } = {}): Promise<PasswordTokenRow | null> {
    const rows: PasswordTokenRow[] = await tx.query(
      `SELECT user_id AS "userId", purpose, used_at AS "usedAt", expires_at <= now() AS "expired"
       FROM password_tokens WHERE token_hash = $1 ${forUpdate ? 'FOR UPDATE' : ''}`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  /** Uses up every open link of the user: once the password is set, older links must not set it again. */
  async useAllOfUser(tx: Transaction, userId: string): Promise<void> {
    await tx.query('UPDATE password_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL', [userId]);
  }
}
