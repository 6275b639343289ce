import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** The photo version on the items row: which upload an item shows. */
@Injectable()
export class PhotosRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Takes the next photo version of the owner's item (row locked until commit) and bumps the item's version (its
   * event's); null if it is not theirs.
   */
  async nextPhotoVersion(manager: EntityManager, code: string, ownerUserId: string): Promise<{ photoVersion: number; version: number } | null> {
    const [rows]: [Array<{ photo_version: number; version: number }>, number] = await manager.query(
      `UPDATE items SET photo_version = coalesce(photo_version, 0) + 1, version = version + 1, updated_at = now()
        WHERE code = $1 AND owner_user_id = $2 RETURNING photo_version, version`,
      [code, ownerUserId],
    );
    return rows[0] ? { photoVersion: rows[0].photo_version, version: rows[0].version } : null;
  }

  async photoVersion(code: string): Promise<number | null> {
    const rows: Array<{ photo_version: number | null }> = await this.dataSource.query('SELECT photo_version FROM items WHERE code = $1', [code]);
    return rows[0]?.photo_version ?? null;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}
