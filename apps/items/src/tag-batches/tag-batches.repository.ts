import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface TagBatchRow {
  id: string;
  label: string;
  tag_count: number;
  created_at: Date;
}

/** The only place that reads or writes tag batches (and the items rows they mint). */
@Injectable()
export class TagBatchesRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertBatch(manager: EntityManager, batch: { id: string; label: string; count: number; createdBy: string }): Promise<TagBatchRow> {
    const rows: TagBatchRow[] = await manager.query(
      'INSERT INTO tag_batches (id, label, tag_count, created_by) VALUES ($1, $2, $3, $4) RETURNING id, label, tag_count, created_at',
      [batch.id, batch.label, batch.count, batch.createdBy],
    );
    return rows[0];
  }

  /** Inserts unclaimed tags of the batch; returns how many codes were new (a taken code is skipped). */
  async insertTags(manager: EntityManager, batchId: string, codes: string[]): Promise<number> {
    const rows: unknown[] = await manager.query(
      'INSERT INTO items (code, batch_id) SELECT unnest($1::char(16)[]), $2 ON CONFLICT (code) DO NOTHING RETURNING code',
      [codes, batchId],
    );
    return rows.length;
  }

  async findBatch(id: string): Promise<TagBatchRow | null> {
    const rows: TagBatchRow[] = await this.dataSource.query('SELECT id, label, tag_count, created_at FROM tag_batches WHERE id = $1', [id]);
    return rows[0] ?? null;
  }

  /** The batch's codes in print order (by code), one page's worth. */
  async findCodes(batchId: string, page: { limit: number; offset: number }): Promise<string[]> {
    const rows: Array<{ code: string }> = await this.dataSource.query('SELECT code FROM items WHERE batch_id = $1 ORDER BY code LIMIT $2 OFFSET $3', [
      batchId,
      page.limit,
      page.offset,
    ]);
    return rows.map((row) => row.code);
  }
}
