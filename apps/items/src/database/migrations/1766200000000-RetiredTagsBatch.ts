import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RetiredTagsBatch1766200000000 implements MigrationInterface {
  name = 'RetiredTagsBatch1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A retired code keeps the batch it was minted in: a batch's sheets, its codes file and its activations count it
    // still (a printed sheet does not change when one of its tags is deleted). Codes retired before keep none.
    await queryRunner.query('ALTER TABLE retired_tags ADD COLUMN batch_id uuid');
    await queryRunner.query('CREATE INDEX retired_tags_batch_code ON retired_tags (batch_id, code) WHERE batch_id IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX retired_tags_batch_code');
    await queryRunner.query('ALTER TABLE retired_tags DROP COLUMN batch_id');
  }
}
