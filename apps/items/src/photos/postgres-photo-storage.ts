import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { PhotoSize } from '@homing/contracts';
import type { PhotoRendition, PhotoStorage } from './photo-storage';

/** Photo renditions in the `item_photos` table; they go with their item (ON DELETE CASCADE). */
@Injectable()
export class PostgresPhotoStorage implements PhotoStorage {
  constructor(private readonly dataSource: DataSource) {}

  async put(itemCode: string, renditions: Record<PhotoSize, PhotoRendition>, transaction?: unknown): Promise<void> {
    const manager = (transaction as EntityManager | undefined) ?? this.dataSource.manager;
    for (const [size, rendition] of Object.entries(renditions)) {
      await manager.query(
        `INSERT INTO item_photos (item_code, size, content_type, content) VALUES ($1, $2, $3, $4)
         ON CONFLICT (item_code, size) DO UPDATE SET content_type = EXCLUDED.content_type, content = EXCLUDED.content`,
        [itemCode, size, rendition.contentType, rendition.content],
      );
    }
  }

  async get(itemCode: string, size: PhotoSize): Promise<PhotoRendition | null> {
    const rows: Array<{ content_type: string; content: Buffer }> = await this.dataSource.query(
      'SELECT content_type, content FROM item_photos WHERE item_code = $1 AND size = $2',
      [itemCode, size],
    );
    return rows[0] ? { contentType: rows[0].content_type, content: rows[0].content } : null;
  }
}
