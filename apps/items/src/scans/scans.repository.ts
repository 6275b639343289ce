import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '@homing/platform';
import type { DeviceKind } from '@homing/contracts';

export interface NewScan {
  id: string;
  code: string;
  city: string | null;
  country: string | null;
  deviceKind: DeviceKind;
}

export interface RecordedScan {
  owner_user_id: string;
  lost: boolean;
  scanned_at: Date;
}

export interface ScanRow {
  item_code: string;
  scanned_at: Date;
  city: string | null;
  country: string | null;
  device_kind: DeviceKind;
}

/** The only place that reads or writes the scans table. */
@Injectable()
export class ScansRepository {
  constructor(private readonly database: Database) {}

  /**
   * Records a scan of a claimed item's tag, in one statement; null when the code is no claimed item's (an unclaimed
   * tag has nobody to show its scans to). Says whether the item is lost, for the alert. The item's row is share-locked
   * as it is read: a scan that meets a transfer or a deletion in progress waits for it and reads the item as it is
   * after (read in the statement's snapshot, it was announced to the previous owner and kept after the transfer had
   * deleted the scans of before, for the next owner to see).
   */
  async insert(transaction: Transaction, scan: NewScan): Promise<RecordedScan | null> {
    const row = await this.database.one<RecordedScan>(
      `WITH item AS (SELECT code, owner_user_id, lost_at FROM items WHERE code = $2 AND owner_user_id IS NOT NULL FOR SHARE),
            inserted AS (INSERT INTO scans (id, item_code, city, country, device_kind) SELECT $1, code, $3, $4, $5 FROM item RETURNING scanned_at)
       SELECT item.owner_user_id, item.lost_at IS NOT NULL AS lost, inserted.scanned_at FROM item, inserted`,
      [scan.id, scan.code, scan.city, scan.country, scan.deviceKind],
      transaction,
    );
    return row ?? null;
  }

  /** The item's scans since `since`, newest first, at most `limit`, for its owner or a co-owner; null for anyone else. */
  async listOwned(code: string, ownerUserId: string, since: Date, limit: number): Promise<ScanRow[] | null> {
    const rows = await this.database.rows<ScanRow & { owned: boolean }>(
      `SELECT true AS owned, s.item_code, s.scanned_at, s.city, s.country, s.device_kind
         FROM items i LEFT JOIN LATERAL (
           SELECT item_code, scanned_at, city, country, device_kind FROM scans
            WHERE item_code = i.code AND scanned_at >= $3 ORDER BY scanned_at DESC LIMIT $4) s ON true
        WHERE i.code = $1 AND (i.owner_user_id = $2 OR EXISTS (SELECT 1 FROM item_co_owners c WHERE c.item_code = i.code AND c.user_id = $2))`,
      [code, ownerUserId, since, limit],
    );
    if (rows.length === 0) return null;
    return rows.filter((row) => row.item_code !== null);
  }

  async findById(id: string): Promise<ScanRow | null> {
    const row = await this.database.one<ScanRow>('SELECT item_code, scanned_at, city, country, device_kind FROM scans WHERE id = $1', [id]);
    return row ?? null;
  }

  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }
}
