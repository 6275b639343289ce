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

  scansOfOwner(ownerUserId: string): Promise<ScanExportRow[]> {
    return this.database.rows<ScanExportRow>(
      `SELECT s.item_code AS "itemCode", s.scanned_at AS "scannedAt", s.city, s.country, s.device_kind AS "deviceKind"
       FROM scans s JOIN items i ON i.code = s.item_code WHERE i.owner_user_id = $1 ORDER BY s.scanned_at DESC`,
      [ownerUserId],
    );
  }
}
