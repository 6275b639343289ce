import { Injectable } from '@nestjs/common';
import { applyIfNewer, Database, prepared, type Transaction } from '@homing/platform';

export interface ItemOwner {
  itemCode: string;
  ownerUserId: string;
  claimedAt: Date;
  /** The item's co-owners: owners to its thread as the owner is, except that only the owner resets it. */
  coOwnerUserIds: string[];
}

/** Whether the user is an owner to the item's thread: its owner or one of its co-owners. */
export function ownsItem(item: Pick<ItemOwner, 'ownerUserId' | 'coOwnerUserIds'>, userId: string | null): boolean {
  return userId !== null && (userId === item.ownerUserId || item.coOwnerUserIds.includes(userId));
}

const TOMBSTONE = { owner_user_id: null, co_owner_user_ids: [], claimed_at: null, name: null, handover_secret: null };

// An item a thread can be about: claimed, not deleted.
const ACTIVATED = 'deleted_at IS NULL AND owner_user_id IS NOT NULL';
// Read by every message and thread call about an item (B3): kept prepared on each connection.
const FIND_BY_CODE = prepared(`SELECT item_code, owner_user_id, co_owner_user_ids, claimed_at FROM item_owners WHERE item_code = $1 AND ${ACTIVATED}`);

/**
 * The activated item of the code in `codeSql` (a parameter) as a CTE named `name` with its `item_code` and
 * `owner_user_id`, for a change that finds its item in its own statement (an anonymous finder's first message: one
 * round trip in all). A plain read: it locks nothing.
 */
export const activatedItemCte = (name: string, codeSql: string): string =>
  `${name} AS (SELECT item_code, owner_user_id FROM item_owners WHERE item_code = ${codeSql} AND ${ACTIVATED})`;

/** The only place that reads or writes the item_owners projection (`activatedItemCte` is its SQL too, run inside another statement). */
@Injectable()
export class ItemOwnersRepository {
  constructor(private readonly database: Database) {}

  /**
   * Records the owner (and, from a creation, the name) as of the item's `version`; an event older than the row's
   * version changes nothing, except that it fills in a missing owner: an item's owner is set once, when it is
   * created or claimed, so a rename that overtook the creation must not leave the item without one.
   */
  async upsert(transaction: Transaction, owner: Omit<ItemOwner, 'coOwnerUserIds'> & { name?: string | null }, version: number): Promise<boolean> {
    const applied = await applyIfNewer(transaction, {
      table: 'item_owners',
      key: { item_code: owner.itemCode },
      version,
      values: {
        owner_user_id: owner.ownerUserId,
        claimed_at: owner.claimedAt,
        ...(owner.name === undefined ? {} : { name: owner.name }),
        deleted_at: null,
        updated_at: new Date(),
      },
    });
    if (!applied) {
      // A newer people-changed event may have set the owner (perhaps a later one, after a transfer) but never the claim time.
      await this.database.affected(
        `UPDATE item_owners SET owner_user_id = coalesce(owner_user_id, $2), claimed_at = coalesce(claimed_at, $3)
         WHERE item_code = $1 AND (owner_user_id IS NULL OR claimed_at IS NULL) AND deleted_at IS NULL`,
        [owner.itemCode, owner.ownerUserId, owner.claimedAt],
        transaction,
      );
    }
    return applied;
  }

  /**
   * Records the item's people (owner and co-owners, the whole set) as of `version`; an older event changes nothing,
   * except that it fills in an item still without owner (a rename overtook every event that named one).
   */
  async setPeople(transaction: Transaction, people: { itemCode: string; ownerUserId: string; coOwnerUserIds: string[] }, version: number): Promise<boolean> {
    const applied = await applyIfNewer(transaction, {
      table: 'item_owners',
      key: { item_code: people.itemCode },
      version,
      values: { owner_user_id: people.ownerUserId, co_owner_user_ids: people.coOwnerUserIds, updated_at: new Date() },
    });
    if (!applied) {
      await this.database.affected(
        'UPDATE item_owners SET owner_user_id = $2, co_owner_user_ids = $3 WHERE item_code = $1 AND owner_user_id IS NULL AND deleted_at IS NULL',
        [people.itemCode, people.ownerUserId, people.coOwnerUserIds],
        transaction,
      );
    }
    return applied;
  }

  /** Records the item's name as of `version` (a rename); an older rename than the row's version changes nothing. */
  async rename(transaction: Transaction, itemCode: string, name: string | null, version: number): Promise<boolean> {
    return applyIfNewer(transaction, { table: 'item_owners', key: { item_code: itemCode }, version, values: { name, updated_at: new Date() } });
  }

  /**
   * Marks the item deleted as of `version`, keeping the row as a tombstone against late events: the code and its
   * version only, no owner, co-owners, name or time of claim (a deleted item ties no one to anything).
   */
  async markDeleted(transaction: Transaction, itemCode: string, version: number): Promise<boolean> {
    return applyIfNewer(transaction, {
      table: 'item_owners',
      key: { item_code: itemCode },
      version,
      values: { ...TOMBSTONE, deleted_at: new Date(), updated_at: new Date() },
    });
  }

  /**
   * Turns every item of an erased user into a tombstone at once (items' deletion events follow and find them so);
   * returns their codes, whose conversations go too.
   */
  async forgetOwner(transaction: Transaction, ownerUserId: string): Promise<string[]> {
    const rows = await this.database.rows<{ item_code: string }>(
      `UPDATE item_owners SET owner_user_id = NULL, co_owner_user_ids = '{}', claimed_at = NULL, name = NULL, handover_secret = NULL,
              deleted_at = COALESCE(deleted_at, now()), updated_at = now()
       WHERE owner_user_id = $1 RETURNING item_code`,
      [ownerUserId],
      transaction,
    );
    return rows.map((row) => row.item_code);
  }

  /**
   * Takes an erased user out of the co-owners of every item they shared, at once: items' people-changed events
   * without them follow (at a newer version) and agree. The items and their conversations stay their owners'.
   */
  async forgetCoOwner(transaction: Transaction, userId: string): Promise<void> {
    await this.database.affected(
      'UPDATE item_owners SET co_owner_user_ids = array_remove(co_owner_user_ids, $1::uuid), updated_at = now() WHERE co_owner_user_ids @> ARRAY[$1::uuid]',
      [userId],
      transaction,
    );
  }

  async findByCode(itemCode: string): Promise<ItemOwner | null> {
    const row = await this.database.one<{ item_code: string; owner_user_id: string; co_owner_user_ids: string[]; claimed_at: Date }>(
      FIND_BY_CODE,
      [itemCode],
    );
    return row ? { itemCode: row.item_code, ownerUserId: row.owner_user_id, coOwnerUserIds: row.co_owner_user_ids, claimedAt: row.claimed_at } : null;
  }

  /** Which of these codes are the user's (activated, not deleted), as owner or co-owner. */
  async findCodesOwnedBy(itemCodes: string[], userId: string): Promise<Set<string>> {
    if (itemCodes.length === 0) return new Set();
    const rows = await this.database.rows<{ item_code: string }>(
      `SELECT item_code FROM item_owners
       WHERE item_code = ANY($1::char(16)[]) AND (owner_user_id = $2 OR co_owner_user_ids @> ARRAY[$2::uuid]) AND deleted_at IS NULL`,
      [itemCodes, userId],
    );
    return new Set(rows.map((row) => row.item_code));
  }

  /**
   * Forgets the item's hand-over key (a transfer: the previous owner knew it and could work out the new owner's daily
   * codes); the next caller that needs one makes a new one.
   */
  async dropHandoverSecret(transaction: Transaction, itemCode: string): Promise<void> {
    await this.database.affected('UPDATE item_owners SET handover_secret = NULL WHERE item_code = $1', [itemCode], transaction);
  }

  /** The item's hand-over key, made (random) by the first caller that needs it; null for an unknown or deleted item. */
  async handoverSecret(itemCode: string, candidate: Buffer): Promise<Buffer | null> {
    const row = await this.database.one<{ handover_secret: Buffer }>(
      `UPDATE item_owners SET handover_secret = coalesce(handover_secret, $2) WHERE item_code = $1 AND deleted_at IS NULL
       RETURNING handover_secret`,
      [itemCode, candidate],
    );
    return row?.handover_secret ?? null;
  }

  /**
   * Counts a hand-over try against the item's hour (the hour from its first try), before the try is checked: the
   * row's lock makes tries of the item, in any of its conversations, take turns, so each sees every try before it.
   * The item's tries of the hour with this one, and when that hour began; null for an unknown item.
   */
  async countHandoverTry(transaction: Transaction, itemCode: string, now: Date): Promise<{ tries: number; since: Date } | null> {
    const row = await this.database.one<{ tries: number; since: Date }>(
      `UPDATE item_owners
          SET handover_tries = CASE WHEN handover_tries_since > $2::timestamptz - interval '1 hour' THEN handover_tries + 1 ELSE 1 END,
              handover_tries_since = CASE WHEN handover_tries_since > $2::timestamptz - interval '1 hour' THEN handover_tries_since ELSE $2::timestamptz END
        WHERE item_code = $1
        RETURNING handover_tries AS tries, handover_tries_since AS since`,
      [itemCode, now],
      transaction,
    );
    return row ?? null;
  }
}
