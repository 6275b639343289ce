import { Injectable } from '@nestjs/common';
import { PUBLIC_ITEMS_BATCH_MAX } from '@homing/contracts';
import { Database, type Transaction } from '@homing/platform';

export interface ItemRow {
  code: string;
  name: string | null;
  reward_cents: number | null;
  owner_user_id: string | null;
  claimed_at: Date | null;
  /** Which photo upload the item shows; null without a photo. */
  photo_version: number | null;
  /** Since when its owner has marked it lost; null when it is not. */
  lost_at: Date | null;
  /** The owner's note to finders while it is lost. */
  lost_note: string | null;
}

/** An item as one of its people reads it: their role, and whether it has co-owners. */
export interface PersonItemRow extends ItemRow {
  role: 'owner' | 'co-owner';
  shared: boolean;
}

// The caller ($1) is the item's owner or one of its co-owners.
const PERSON_OF = `(i.owner_user_id = $1 OR EXISTS (SELECT 1 FROM item_co_owners p WHERE p.item_code = i.code AND p.user_id = $1))`;
const PERSON_COLUMNS = `${'code, name, reward_cents, owner_user_id, claimed_at, photo_version, lost_at, lost_note'
  .split(', ')
  .map((column) => `i.${column}`)
  .join(', ')}, CASE WHEN i.owner_user_id = $1 THEN 'owner' ELSE 'co-owner' END AS role,
  EXISTS (SELECT 1 FROM item_co_owners s WHERE s.item_code = i.code) AS shared`;

/** A row just written: with the version its event carries. */
export interface VersionedItemRow extends ItemRow {
  /** Rises with every change that publishes an event (EventEnvelope.version). */
  version: number;
}

const ITEM_COLUMNS = 'code, name, reward_cents, owner_user_id, claimed_at, photo_version, lost_at, lost_note';

// The tag scan is the hottest path (ARCHITECTURE §7): named prepared statements of the needed columns, read by
// position (itemOfColumns): keep the order.
const PUBLIC_COLUMNS = `code, name, reward_cents, owner_user_id, claimed_at, photo_version, lost_at, lost_note,
  coalesce((SELECT array_agg(user_id::text) FROM item_co_owners WHERE item_code = items.code), '{}') AS co_owner_user_ids`;
const FIND_BY_CODE = { name: 'items_find_by_code', text: `SELECT ${PUBLIC_COLUMNS} FROM items WHERE code = $1` };
/**
 * A batch's lookup is one of a few statements of a fixed number of codes (FIND_BY_CODES_SIZES), the batch padded
 * with its last code. PostgreSQL plans a named statement afresh on each execution until a generic plan (made once)
 * looks no costlier than the custom ones: for `code = ANY($1)` it never does (the generic plan guesses 10 codes, a
 * custom one counts them), and the planning cost more than the lookup (EXPLAIN: 0.07 ms against 0.03). With `IN`
 * over n parameters both plans count n codes, so each statement runs its generic plan from its sixth execution.
 * char(16), the column's own type: text parameters would compare as text and leave the primary key unused.
 */
export const FIND_BY_CODES_SIZES = [1, 2, 4, 8, 16, 32, 64, PUBLIC_ITEMS_BATCH_MAX] as const;
const FIND_BY_CODES = FIND_BY_CODES_SIZES.map((size) => ({
  name: `items_find_by_codes_${size}`,
  text: `SELECT ${PUBLIC_COLUMNS} FROM items WHERE code IN (${Array.from({ length: size }, (_, index) => `$${index + 1}::char(16)`).join(', ')})`,
}));

/** An item as a scan reads it: its row and its co-owners. */
export type PublicItemRow = ItemRow & { co_owner_user_ids: string[] };

/** The only place that reads or writes the items table. */
@Injectable()
export class ItemsRepository {
  constructor(private readonly database: Database) {}

  async findByCode(code: string): Promise<PublicItemRow | null> {
    // A named statement is parsed and planned once per connection instead of on every scan; its row comes as an
    // array (no object built by pg), mapped by PUBLIC_COLUMNS' order.
    const [row] = await this.database.namedArrays(FIND_BY_CODE, [code]);
    return row ? itemOfColumns(row) : null;
  }

  /** The items of these canonical codes that exist, in no particular order: the scans the gateway asks about together. */
  async findByCodes(codes: readonly string[]): Promise<PublicItemRow[]> {
    if (codes.length === 0) return [];
    const fits = FIND_BY_CODES_SIZES.findIndex((size) => size >= codes.length);
    if (fits < 0) throw new RangeError(`at most ${PUBLIC_ITEMS_BATCH_MAX} codes a lookup, not ${codes.length}`);
    const statement = FIND_BY_CODES[fits];
    const values = Array.from({ length: FIND_BY_CODES_SIZES[fits] }, (_, index) => codes[Math.min(index, codes.length - 1)]);
    return (await this.database.namedArrays(statement, values)).map(itemOfColumns);
  }

  /** Inserts a claimed item (version 1); null if the code is taken or retired (the caller mints another). */
  async insertClaimed(transaction: Transaction, item: { code: string; name: string; ownerUserId: string }): Promise<VersionedItemRow | null> {
    const row = await this.database.one<VersionedItemRow>(
      `INSERT INTO items (code, name, owner_user_id, claimed_at, version)
       SELECT $1, $2, $3, now(), 1 WHERE NOT EXISTS (SELECT 1 FROM retired_tags WHERE code = $1)
       ON CONFLICT (code) DO NOTHING
       RETURNING ${ITEM_COLUMNS}, version`,
      [item.code, item.name, item.ownerUserId],
      transaction,
    );
    return row ?? null;
  }

  /** Runs `work` in one transaction: a change and the event it records commit together or not at all. */
  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }

  /** The items the user owns or co-owns, newest claim first, then by code (stable for paging). */
  findOwned(userId: string, page: { limit: number; offset: number }): Promise<PersonItemRow[]> {
    return this.database.rows<PersonItemRow>(
      `SELECT ${PERSON_COLUMNS} FROM items i WHERE ${PERSON_OF} ORDER BY i.claimed_at DESC, i.code LIMIT $2 OFFSET $3`,
      [userId, page.limit, page.offset],
    );
  }

  /** The item if the user is its owner or a co-owner, with their role; null otherwise. */
  async findOwnedByCode(code: string, userId: string, transaction?: Transaction): Promise<PersonItemRow | null> {
    return (await this.database.one<PersonItemRow>(`SELECT ${PERSON_COLUMNS} FROM items i WHERE i.code = $2 AND ${PERSON_OF}`, [userId, code], transaction)) ?? null;
  }

  /**
   * Locks the item's row for the rest of the transaction, waiting for a change under way (a co-owner removed, a
   * transfer, lost mode ended): a read after it sees that change's outcome, which the same statement's condition could
   * not (in READ COMMITTED a re-checked row is current, the other tables of its condition are not). False: no such item.
   */
  async lock(transaction: Transaction, code: string): Promise<boolean> {
    return (await this.database.one('SELECT 1 FROM items WHERE code = $1 FOR UPDATE', [code], transaction)) !== undefined;
  }

  /**
   * Changes the given fields of the owner's item and bumps its version; null when the owner has no item with this
   * code. An undefined field stays as it is. Lost mode on keeps the time it began; off removes the note with it; a
   * note of '' removes the note.
   */
  async updateOwned(
    transaction: Transaction,
    item: { code: string; ownerUserId: string; name?: string; rewardCents?: number; lost?: boolean; lostNote?: string },
  ): Promise<VersionedItemRow | null> {
    const row = await this.database.one<VersionedItemRow>(
      `UPDATE items
         SET name = COALESCE($3, name),
             reward_cents = CASE WHEN $4::boolean THEN $5::integer ELSE reward_cents END,
             lost_at = CASE WHEN $6::boolean IS NULL THEN lost_at WHEN $6::boolean THEN COALESCE(lost_at, now()) ELSE NULL END,
             lost_note = CASE WHEN $6::boolean = false THEN NULL WHEN $7::text IS NOT NULL THEN NULLIF($7::text, '') ELSE lost_note END,
             version = version + 1,
             updated_at = now()
       WHERE code = $1 AND owner_user_id = $2
       RETURNING ${ITEM_COLUMNS}, version`,
      [item.code, item.ownerUserId, item.name ?? null, item.rewardCents !== undefined, item.rewardCents ?? null, item.lost ?? null, item.lostNote ?? null],
      transaction,
    );
    return row ?? null;
  }

  /** Ends the item's lost mode (the note with it) if it began before `before`; null when it was not lost then. */
  async endLostModeBefore(transaction: Transaction, code: string, ownerUserId: string, before: Date): Promise<VersionedItemRow | null> {
    const row = await this.database.one<VersionedItemRow>(
      `UPDATE items SET lost_at = NULL, lost_note = NULL, version = version + 1, updated_at = now()
       WHERE code = $1 AND owner_user_id = $2 AND lost_at IS NOT NULL AND lost_at <= $3
       RETURNING ${ITEM_COLUMNS}, version`,
      [code, ownerUserId, before],
      transaction,
    );
    return row ?? null;
  }

  /**
   * Deletes the owner's item and retires its code (photos go with the row); returns the version its deletion event
   * carries, or null when there was none.
   */
  async deleteOwned(transaction: Transaction, code: string, ownerUserId: string): Promise<number | null> {
    const [row] = await this.retire(transaction, 'code = $1 AND owner_user_id = $2', [code, ownerUserId]);
    return row ? row.version : null;
  }

  /** Deletes and retires every item of the user (their account is erased); each code with its deletion's version. */
  deleteAllOwnedBy(transaction: Transaction, ownerUserId: string): Promise<Array<{ code: string; version: number }>> {
    return this.retire(transaction, 'owner_user_id = $1', [ownerUserId]);
  }

  private retire(transaction: Transaction, where: string, values: unknown[]): Promise<Array<{ code: string; version: number }>> {
    // The row is gone; its deletion is one more change, so the event is one version past the last. The tombstone keeps
    // the batch the code was minted in, so the batch's sheets and counts stay as they were.
    return this.database.rows<{ code: string; version: number }>(
      `WITH deleted AS (DELETE FROM items WHERE ${where} RETURNING code, version, batch_id),
            retired AS (INSERT INTO retired_tags (code, batch_id) SELECT code, batch_id FROM deleted ON CONFLICT (code) DO NOTHING)
       SELECT code, version + 1 AS version FROM deleted ORDER BY code`,
      values,
      transaction,
    );
  }

  /** Inserts unclaimed tags; returns the codes that were new (never a retired one). */
  async insertUnclaimed(codes: string[]): Promise<string[]> {
    const rows = await this.database.rows<{ code: string }>(
      `INSERT INTO items (code) SELECT new.code FROM unnest($1::char(16)[]) AS new (code)
       WHERE NOT EXISTS (SELECT 1 FROM retired_tags WHERE retired_tags.code = new.code)
       ON CONFLICT (code) DO NOTHING RETURNING code`,
      [codes],
    );
    return rows.map((row) => row.code);
  }
}

function itemOfColumns(row: unknown[]): PublicItemRow {
  const [code, name, rewardCents, ownerUserId, claimedAt, photoVersion, lostAt, lostNote, coOwnerUserIds] = row as [
    string, string | null, number | null, string | null, Date | null, number | null, Date | null, string | null, string[],
  ];
  return {
    code,
    name,
    reward_cents: rewardCents,
    owner_user_id: ownerUserId,
    claimed_at: claimedAt,
    photo_version: photoVersion,
    lost_at: lostAt,
    lost_note: lostNote,
    co_owner_user_ids: coOwnerUserIds,
  };
}
