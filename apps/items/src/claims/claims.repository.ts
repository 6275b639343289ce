import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '@homing/platform';

export interface ClaimedRow {
  claimed_at: Date;
  version: number;
}

/** The only place that writes a claim: a tag becomes an item with an owner. */
@Injectable()
export class ClaimsRepository {
  constructor(private readonly database: Database) {}

  /**
   * Whether a tag exists, and whether someone already claimed it, with its row locked for the rest of the transaction:
   * a concurrent claim waits here until this one commits or rolls back, then reads the row as it is by then.
   */
  async lockState(transaction: Transaction, code: string): Promise<'unknown' | 'unclaimed' | 'claimed'> {
    const row = await this.database.one<{ claimed: boolean }>('SELECT claimed_at IS NOT NULL AS claimed FROM items WHERE code = $1 FOR UPDATE', [code], transaction);
    if (!row) return 'unknown';
    return row.claimed ? 'claimed' : 'unclaimed';
  }

  /**
   * Claims the tag for its owner if nobody has: a conditional update, so of two concurrent claims exactly one
   * changes the row (the other waits on the row lock, then finds it claimed). Null if it was already claimed.
   */
  async claimIfUnclaimed(transaction: Transaction, code: string, ownerUserId: string): Promise<ClaimedRow | null> {
    const row = await this.database.one<ClaimedRow>(
      `UPDATE items SET owner_user_id = $2, claimed_at = now(), updated_at = now(), version = version + 1
        WHERE code = $1 AND claimed_at IS NULL
        RETURNING claimed_at, version`,
      [code, ownerUserId],
      transaction,
    );
    return row ?? null;
  }

  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }
}
