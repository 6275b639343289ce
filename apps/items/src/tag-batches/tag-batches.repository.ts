import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '@homing/platform';

export interface TagBatchRow {
  id: string;
  label: string;
  tag_count: number;
  created_at: Date;
}

/** A batch as admins list it: with how many of its tags are activated and who minted it. */
export interface TagBatchSummaryRow extends TagBatchRow {
  created_by: string | null;
  claimed: number;
}

// The claimed count walks the batch's index (batch_id, code): one index range per batch, no scan of items. A retired
// code of the batch was claimed (only its owner deletes an item) and counts as an activation still.
const SUMMARY = `SELECT b.id, b.label, b.tag_count, b.created_at, b.created_by,
    (SELECT count(*)::int FROM items i WHERE i.batch_id = b.id AND i.claimed_at IS NOT NULL)
      + (SELECT count(*)::int FROM retired_tags r WHERE r.batch_id = b.id) AS claimed
  FROM tag_batches b`;

// A batch's codes as minted: its items' and its retired codes' (a deleted item's tag is still on the printed sheet, and
// pages must not shift under a reprint), merged in code order from the two (batch_id, code) indexes.
const CODES_OF_BATCH = `SELECT code FROM items WHERE batch_id = $1 AND code > $2
  UNION ALL SELECT code FROM retired_tags WHERE batch_id = $1 AND code > $2`;

/** The only place that reads or writes tag batches (and the items rows they mint; it reads the retired codes of a batch). */
@Injectable()
export class TagBatchesRepository {
  constructor(private readonly database: Database) {}

  async insertBatch(transaction: Transaction, batch: { id: string; label: string; count: number; createdBy: string }): Promise<TagBatchRow> {
    const row = await this.database.one<TagBatchRow>(
      'INSERT INTO tag_batches (id, label, tag_count, created_by) VALUES ($1, $2, $3, $4) RETURNING id, label, tag_count, created_at',
      [batch.id, batch.label, batch.count, batch.createdBy],
      transaction,
    );
    return row as TagBatchRow;
  }

  /** Inserts unclaimed tags of the batch; returns how many codes were new (a taken or retired code is skipped). */
  insertTags(transaction: Transaction, batchId: string, codes: string[]): Promise<number> {
    return this.database.affected(
      `INSERT INTO items (code, batch_id) SELECT new.code, $2 FROM unnest($1::char(16)[]) AS new (code)
       WHERE NOT EXISTS (SELECT 1 FROM retired_tags WHERE retired_tags.code = new.code)
       ON CONFLICT (code) DO NOTHING`,
      [codes, batchId],
      transaction,
    );
  }

  /** Batches keep no trace of an admin whose account is erased. */
  forgetCreator(transaction: Transaction, userId: string): Promise<number> {
    return this.database.affected('UPDATE tag_batches SET created_by = NULL WHERE created_by = $1', [userId], transaction);
  }

  async findBatch(id: string): Promise<TagBatchRow | null> {
    return (await this.database.one<TagBatchRow>('SELECT id, label, tag_count, created_at FROM tag_batches WHERE id = $1', [id])) ?? null;
  }

  /** Every batch, newest first, with its claimed count. */
  listSummaries(): Promise<TagBatchSummaryRow[]> {
    return this.database.rows<TagBatchSummaryRow>(`${SUMMARY} ORDER BY b.created_at DESC, b.id DESC`, []);
  }

  async findSummary(id: string): Promise<TagBatchSummaryRow | null> {
    return (await this.database.one<TagBatchSummaryRow>(`${SUMMARY} WHERE b.id = $1`, [id])) ?? null;
  }

  /** Up to `limit` of the batch's codes in code order, after `after` (keyset paging on the (batch_id, code) index). */
  async findCodesAfter(batchId: string, after: string | undefined, limit: number): Promise<string[]> {
    const rows = await this.database.rows<{ code: string }>(`${CODES_OF_BATCH} ORDER BY code LIMIT $3`, [batchId, after ?? '', limit]);
    return rows.map((row) => row.code);
  }

  /** The batch's codes in print order (by code), one page's worth. */
  async findCodes(batchId: string, page: { limit: number; offset: number }): Promise<string[]> {
    const rows = await this.database.rows<{ code: string }>(`${CODES_OF_BATCH} ORDER BY code LIMIT $3 OFFSET $4`, [batchId, '', page.limit, page.offset]);
    return rows.map((row) => row.code);
  }
}
