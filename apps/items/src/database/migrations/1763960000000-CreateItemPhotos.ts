import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateItemPhotos1763960000000 implements MigrationInterface {
  name = 'CreateItemPhotos1763960000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Renditions of an item's photo, already decoded, re-encoded and stripped of metadata by the gateway.
    await queryRunner.query(`
      CREATE TABLE item_photos (
        item_code char(16) NOT NULL REFERENCES items (code) ON DELETE CASCADE,
        size text NOT NULL CHECK (size IN ('thumbnail', 'normal')),
        content_type text NOT NULL,
        content bytea NOT NULL,
        PRIMARY KEY (item_code, size)
      )`);
    // Which upload the item shows (null: no photo). On the items row, so the scan learns it without a join.
    await queryRunner.query('ALTER TABLE items ADD COLUMN photo_version integer');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE items DROP COLUMN photo_version');
    await queryRunner.query('DROP TABLE item_photos');
  }
}
