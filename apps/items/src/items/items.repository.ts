import { Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

export interface ItemRow {
  code: string;
  name: string | null;
  reward_cents: number | null;
  owner_user_id: string | null;
  claimed_at: Date | null;
}

/** A row just written: with the version its event carries. */
export interface VersionedItemRow extends ItemRow {
  /** Rises with every change that publishes an event (EventEnvelope.version). */
  version: number;
}

// The tag scan is the hottest path (ARCHITECTURE §7): a named prepared statement of the needed columns.
const FIND_BY_CODE = {
  name: 'items_find_by_code',
  text: 'SELECT code, name, reward_cents, owner_user_id, claimed_at FROM items WHERE code = $1',
};

/** The only place that reads or writes the items table. */
@Injectable()
export class ItemsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByCode(code: string): Promise<ItemRow | null> {
    // Straight to the pg pool: TypeORM's query() cannot name a statement, and a named one is parsed and planned
    // once per connection instead of on every scan.
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const { rows } = await pool.query<ItemRow>({ ...FIND_BY_CODE, values: [code] });
    return rows[0] ?? null;
  }

  /** Inserts a claimed item (version 1); null if the code is already taken (the caller mints another). */
  async insertClaimed(manager: EntityManager, item: { code: string; name: string; ownerUserId: string }): Promise<VersionedItemRow | null> {
    const rows: VersionedItemRow[] = await manager.query(
      `INSERT INTO items (code, name, owner_user_id, claimed_at, version) VALUES ($1, $2, $3, now(), 1)
       ON CONFLICT (code) DO NOTHING
       RETURNING code, name, reward_cents, owner_user_id, claimed_at, version`,
      [item.code, item.name, item.ownerUserId],
    );
    return rows[0] ?? null;
  }

  /** Inserts unclaimed tags; returns the codes that were new. */
  async insertUnclaimed(codes: string[]): Promise<string[]> {
    const rows: Array<{ code: string }> = await this.dataSource.query(
      'INSERT INTO items (code) SELECT unnest($1::char(16)[]) ON CONFLICT (code) DO NOTHING RETURNING code',
      [codes],
    );
    return rows.map((row) => row.code);
  }
}
