import { Injectable } from '@nestjs/common';
import { Database } from '@homing/platform';

export interface ItemExportRow {
  code: string;
  name: string | null;
  rewardCents: number | null;
  createdAt: Date;
  claimedAt: Date | null;
  photoVersion: number | null;
}

/** Reads a user's items for their export. */
@Injectable()
export class ExportRepository {
  constructor(private readonly database: Database) {}

  itemsOfOwner(ownerUserId: string): Promise<ItemExportRow[]> {
    return this.database.rows<ItemExportRow>(
      `SELECT code, name, reward_cents AS "rewardCents", created_at AS "createdAt", claimed_at AS "claimedAt", photo_version AS "photoVersion"
       FROM items WHERE owner_user_id = $1 ORDER BY claimed_at, code`,
      [ownerUserId],
    );
  }
}
