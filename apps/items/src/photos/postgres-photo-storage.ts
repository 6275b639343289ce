import { Injectable } from '@nestjs/common';
import type { PhotoSize } from '@homing/contracts';
import { Database, type Transaction } from '@homing/platform';
import type { PhotoRendition, PhotoStorage } from './photo-storage';

/** Photo renditions in the `item_photos` table; they go with their item (ON DELETE CASCADE). */
@Injectable()
export class PostgresPhotoStorage implements PhotoStorage {
  constructor(private readonly database: Database) {}

  async put(itemCode: string, renditions: Record<PhotoSize, PhotoRendition>, transaction?: unknown): Promise<void> {
    for (const [size, rendition] of Object.entries(renditions)) {
      await this.database.affected(
        `INSERT INTO item_photos (item_code, size, content_type, content) VALUES ($1, $2, $3, $4)
         ON CONFLICT (item_code, size) DO UPDATE SET content_type = EXCLUDED.content_type, content = EXCLUDED.content`,
        [itemCode, size, rendition.contentType, rendition.content],
        transaction as Transaction | undefined,
      );
    }
  }

  async get(itemCode: string, size: PhotoSize): Promise<PhotoRendition | null> {
    const row = await this.database.one<{ content_type: string; content: Buffer }>(
      'SELECT content_type, content FROM item_photos WHERE item_code = $1 AND size = $2',
      [itemCode, size],
    );
    return row ? { contentType: row.content_type, content: row.content } : null;
  }
}
