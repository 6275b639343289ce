import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddItemVersion1763900000000 implements MigrationInterface {
  name = 'AddItemVersion1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Bumped with every change that publishes an event, in the same transaction: events carry it, so consumers
    // can tell a late event from a newer one. An unclaimed tag has published nothing yet (0).
    await queryRunner.query('ALTER TABLE items ADD COLUMN version integer NOT NULL DEFAULT 0');
    await queryRunner.query('UPDATE items SET version = 1 WHERE claimed_at IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE items DROP COLUMN version');
  }
}
