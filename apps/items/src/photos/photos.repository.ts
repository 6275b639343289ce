import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '@homing/platform';

/** The photo version on the items row: which upload an item shows. */
@Injectable()
export class PhotosRepository {
  constructor(private readonly database: Database) {}

  /**
   * Takes the next photo version of the owner's item (row locked until commit) and bumps the item's version (its
   * event's); null if it is not theirs.
   */
  async nextPhotoVersion(transaction: Transaction, code: string, ownerUserId: string): Promise<{ photoVersion: number; version: number } | null> {
    const row = await this.database.one<{ photo_version: number; version: number }>(
      `UPDATE items SET photo_version = coalesce(photo_version, 0) + 1, version = version + 1, updated_at = now()
        WHERE code = $1 AND owner_user_id = $2 RETURNING photo_version, version`,
      [code, ownerUserId],
      transaction,
    );
    return row ? { photoVersion: row.photo_version, version: row.version } : null;
  }

  async photoVersion(code: string): Promise<number | null> {
    const row = await this.database.one<{ photo_version: number | null }>('SELECT photo_version FROM items WHERE code = $1', [code]);
    return row?.photo_version ?? null;
  }

  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }
}
