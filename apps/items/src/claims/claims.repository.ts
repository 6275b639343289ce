import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface ClaimedRow {
  claimed_at: Date;
  version: number;
}

/** The only place that writes a claim: a tag becomes an item with an owner. */
@Injectable()
export class ClaimsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether a tag exists, and whether someone already claimed it. */
  async stateOf(code: string): Promise<'unknown' | 'unclaimed' | 'claimed'> {
    const rows: Array<{ claimed: boolean }> = await this.dataSource.query('SELECT claimed_at IS NOT NULL AS claimed FROM items WHERE code = $1', [code]);
    if (rows.length === 0) return 'unknown';
    return rows[0].claimed ? 'claimed' : 'unclaimed';
  }

  /**
   * Claims the tag for its owner if nobody has: a conditional update, so of two concurrent claims exactly one
   * changes the row (the other waits on the row lock, then finds it claimed). Null if it was already claimed.
   */
  async claimIfUnclaimed(manager: EntityManager, code: string, ownerUserId: string): Promise<ClaimedRow | null> {
    const [rows]: [ClaimedRow[], number] = await manager.query(
      `UPDATE items SET owner_user_id = $2, claimed_at = now(), updated_at = now(), version = version + 1
        WHERE code = $1 AND claimed_at IS NULL
        RETURNING claimed_at, version`,
      [code, ownerUserId],
    );
    return rows[0] ?? null;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}
