import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Scans1765300000000 implements MigrationInterface {
  name = 'Scans1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One row per visit of a claimed tag's finder page: when, the city and country its address belonged to (looked up
    // by the gateway in an offline database) and a device kind. Never the address, the User-Agent or anything that
    // tells one visitor from another. Kept 30 days (the retention rule `scans-expired`), and gone with the item.
    await queryRunner.query(`
      CREATE TABLE scans (
        id uuid PRIMARY KEY,
        item_code char(16) NOT NULL REFERENCES items (code) ON DELETE CASCADE,
        scanned_at timestamptz NOT NULL DEFAULT now(),
        city text CHECK (char_length(city) <= 200),
        country char(2),
        device_kind text NOT NULL CHECK (device_kind IN ('phone', 'tablet', 'desktop', 'other'))
      )`);
    await queryRunner.query('CREATE INDEX scans_item_code_scanned_at ON scans (item_code, scanned_at DESC)');
    await queryRunner.query('CREATE INDEX scans_scanned_at ON scans (scanned_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE scans');
  }
}
