import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { applyIfNewer } from '@homing/platform';

export interface ItemOwner {
  itemCode: string;
  ownerUserId: string;
  claimedAt: Date;
}

/** The only place that reads or writes the item_owners projection. */
@Injectable()
export class ItemOwnersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records the owner as of the item's `version`; an event older than the row's version changes nothing. */
  async upsert(manager: EntityManager, owner: ItemOwner, version: number): Promise<boolean> {
    return applyIfNewer(manager, {
      table: 'item_owners',
      key: { item_code: owner.itemCode },
      version,
      values: { owner_user_id: owner.ownerUserId, claimed_at: owner.claimedAt, deleted_at: null, updated_at: new Date() },
    });
  }

  /** Marks the item deleted as of `version`, keeping the row as a tombstone against late events. */
  async markDeleted(manager: EntityManager, itemCode: string, version: number): Promise<boolean> {
    return applyIfNewer(manager, {
      table: 'item_owners',
      key: { item_code: itemCode },
      version,
      values: { deleted_at: new Date(), updated_at: new Date() },
    });
  }

  async findByCode(itemCode: string): Promise<ItemOwner | null> {
    const rows: Array<{ item_code: string; owner_user_id: string; claimed_at: Date }> = await this.dataSource.query(
      'SELECT item_code, owner_user_id, claimed_at FROM item_owners WHERE item_code = $1 AND deleted_at IS NULL AND owner_user_id IS NOT NULL',
      [itemCode],
    );
    const row = rows[0];
    return row ? { itemCode: row.item_code, ownerUserId: row.owner_user_id, claimedAt: row.claimed_at } : null;
  }

  /** Which of these codes are the owner's (activated, not deleted). */
  async findCodesOwnedBy(itemCodes: string[], ownerUserId: string): Promise<Set<string>> {
    if (itemCodes.length === 0) return new Set();
    const rows: Array<{ item_code: string }> = await this.dataSource.query(
      'SELECT item_code FROM item_owners WHERE item_code = ANY($1::char(16)[]) AND owner_user_id = $2 AND deleted_at IS NULL',
      [itemCodes, ownerUserId],
    );
    return new Set(rows.map((row) => row.item_code));
  }
}
