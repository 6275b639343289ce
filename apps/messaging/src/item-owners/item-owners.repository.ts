import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface ItemOwner {
  itemCode: string;
  ownerUserId: string;
  claimedAt: Date;
}

/** The only place that reads or writes the item_owners projection. */
@Injectable()
export class ItemOwnersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records the owner; a claim older than the one already known does not overwrite it (events may arrive late). */
  async upsert(manager: EntityManager, owner: ItemOwner): Promise<void> {
    await manager.query(
      `INSERT INTO item_owners (item_code, owner_user_id, claimed_at) VALUES ($1, $2, $3)
       ON CONFLICT (item_code) DO UPDATE
         SET owner_user_id = EXCLUDED.owner_user_id, claimed_at = EXCLUDED.claimed_at, updated_at = now()
         WHERE item_owners.claimed_at <= EXCLUDED.claimed_at`,
      [owner.itemCode, owner.ownerUserId, owner.claimedAt],
    );
  }

  async findByCode(itemCode: string): Promise<ItemOwner | null> {
    const rows: Array<{ item_code: string; owner_user_id: string; claimed_at: Date }> = await this.dataSource.query(
      'SELECT item_code, owner_user_id, claimed_at FROM item_owners WHERE item_code = $1',
      [itemCode],
    );
    const row = rows[0];
    return row ? { itemCode: row.item_code, ownerUserId: row.owner_user_id, claimedAt: row.claimed_at } : null;
  }
}
