import { Injectable } from '@nestjs/common';
import { Database } from '@homing/platform';

export interface ItemExportRow {
  code: string;
  name: string | null;
  rewardCents: number | null;
  createdAt: Date;
  claimedAt: Date | null;
  photoVersion: number | null;
  lostAt: Date | null;
  lostNote: string | null;
}

export interface SharedItemExportRow {
  code: string;
  name: string | null;
  addedAt: Date;
}

export interface ScanExportRow {
  itemCode: string;
  scannedAt: Date;
  city: string | null;
  country: string | null;
  deviceKind: string;
}

/** Reads a user's items for their export. */
@Injectable()
export class ExportRepository {
  constructor(private readonly database: Database) {}

  itemsOfOwner(ownerUserId: string): Promise<ItemExportRow[]> {
    return this.database.rows<ItemExportRow>(
      `SELECT code, name, reward_cents AS "rewardCents", created_at AS "createdAt", claimed_at AS "claimedAt", photo_version AS "photoVersion",
              lost_at AS "lostAt", lost_note AS "lostNote"
       FROM items WHERE owner_user_id = $1 ORDER BY claimed_at, code`,
      [ownerUserId],
    );
  }

  /** The items shared with the user (they co-own them), and since when. */
  itemsSharedWith(userId: string): Promise<SharedItemExportRow[]> {
    return this.database.rows<SharedItemExportRow>(
      `SELECT i.code, i.name, c.added_at AS "addedAt" FROM item_co_owners c JOIN items i ON i.code = c.item_code
       WHERE c.user_id = $1 ORDER BY c.added_at, i.code`,
      [userId],
    );
  }

  scansOfOwner(ownerUserId: string): Promise<ScanExportRow[]> {
    return this.database.rows<ScanExportRow>(
      `SELECT s.item_code AS "itemCode", s.scanned_at AS "scannedAt", s.city, s.country, s.device_kind AS "deviceKind"
       FROM scans s JOIN items i ON i.code = s.item_code WHERE i.owner_user_id = $1 ORDER BY s.scanned_at DESC`,
      [ownerUserId],
    );
  }
}
