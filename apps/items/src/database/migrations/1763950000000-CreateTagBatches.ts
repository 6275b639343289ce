import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateTagBatches1763950000000 implements MigrationInterface {
  name = 'CreateTagBatches1763950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Tags minted together by an admin, to be printed on one run of sheets.
    await queryRunner.query(`
      CREATE TABLE tag_batches (
        id uuid PRIMARY KEY,
        label varchar(100) NOT NULL,
        tag_count integer NOT NULL CHECK (tag_count > 0),
        created_by uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('ALTER TABLE items ADD COLUMN batch_id uuid REFERENCES tag_batches (id)');
    await queryRunner.query('CREATE INDEX items_batch_idx ON items (batch_id, code) WHERE batch_id IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE items DROP COLUMN batch_id');
    await queryRunner.query('DROP TABLE tag_batches');
  }
}
