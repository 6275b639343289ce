import { Injectable } from '@nestjs/common';
import { applyIfNewer, Database, type Transaction } from '@homing/platform';

/** The people of an item as items last said: its owner (none once the item is deleted) and its co-owners. */
export interface ItemPeople {
  ownerUserId: string | null;
  coOwnerUserIds: string[];
}

/**
 * The only file that writes the `item_people` projection. Notifications read it with the people's settings and push
 * subscriptions in one statement (`ItemRecipientsRepository`).
 */
@Injectable()
export class ItemPeopleRepository {
  constructor(private readonly database: Database) {}

  /** Records the item's people as of its `version`; an event older than the row's changes nothing (false). */
  async apply(transaction: Transaction, itemCode: string, people: ItemPeople, version: number): Promise<boolean> {
    return applyIfNewer(transaction, {
      table: 'item_people',
      key: { item_code: itemCode },
      version,
      values: { owner_user_id: people.ownerUserId, co_owner_user_ids: people.coOwnerUserIds, updated_at: new Date() },
    });
  }

  /**
   * The item is deleted as of `version`: the row keeps its code and version only (no one), so a people-changed event
   * that arrives late cannot bring its people back. A deleted item's code never comes back.
   */
  async markDeleted(transaction: Transaction, itemCode: string, version: number): Promise<boolean> {
    return this.apply(transaction, itemCode, { ownerUserId: null, coOwnerUserIds: [] }, version);
  }

  /**
   * An erased user leaves every item's people at once (items' own events follow: their items deleted, the items they
   * shared without them); the version stays, so those events still apply.
   */
  async forgetUser(transaction: Transaction, userId: string): Promise<void> {
    await this.database.affected(
      `UPDATE item_people SET owner_user_id = NULL, co_owner_user_ids = '{}', updated_at = now() WHERE owner_user_id = $1`,
      [userId],
      transaction,
    );
    await this.database.affected(
      `UPDATE item_people SET co_owner_user_ids = array_remove(co_owner_user_ids, $1::uuid), updated_at = now()
       WHERE co_owner_user_ids @> ARRAY[$1::uuid]`,
      [userId],
      transaction,
    );
  }
}
