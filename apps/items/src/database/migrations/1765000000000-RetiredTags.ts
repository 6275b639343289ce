import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RetiredTags1765000000000 implements MigrationInterface {
  name = 'RetiredTags1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Codes of deleted items (by their owner, or with an erased account): a tombstone holding the code alone, so the
    // tag answers like an unknown code and can never be minted or claimed again. No owner, name or time of claim.
    await queryRunner.query(`
      CREATE TABLE retired_tags (
        code char(16) PRIMARY KEY,
        retired_at timestamptz NOT NULL DEFAULT now()
      )`);
    // A batch outlives the admin who minted it: an erased admin's batches keep no trace of them.
    await queryRunner.query('ALTER TABLE tag_batches ALTER COLUMN created_by DROP NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM tag_batches WHERE created_by IS NULL');
    await queryRunner.query('ALTER TABLE tag_batches ALTER COLUMN created_by SET NOT NULL');
    await queryRunner.query('DROP TABLE retired_tags');
  }
}
