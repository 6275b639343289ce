import type { MigrationInterface, QueryRunner } from 'typeorm';

export class FinderLeft1764910000001 implements MigrationInterface {
  name = 'FinderLeft1764910000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    // When the finder deleted their conversation (`DELETE /items/{code}/conversation`): the owner's thread says so and
    // takes no more replies to it. The row stays for the owner's replies; the finder's data is gone.
    await queryRunner.query('ALTER TABLE conversations ADD COLUMN finder_left_at timestamptz');
    // A finder who left has no token any more, not even a hash.
    await queryRunner.query('ALTER TABLE conversations ALTER COLUMN finder_token_hash DROP NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM conversations WHERE finder_token_hash IS NULL');
    await queryRunner.query('ALTER TABLE conversations ALTER COLUMN finder_token_hash SET NOT NULL');
    await queryRunner.query('ALTER TABLE conversations DROP COLUMN finder_left_at');
  }
}
