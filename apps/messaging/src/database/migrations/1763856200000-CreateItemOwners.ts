import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateItemOwners1763856200000 implements MigrationInterface {
  name = 'CreateItemOwners1763856200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A projection of items' events: who owns the item a finder writes about. Never written by requests.
    await queryRunner.query(`
      CREATE TABLE item_owners (
        item_code char(16) PRIMARY KEY,
        owner_user_id uuid NOT NULL,
        claimed_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE item_owners');
  }
}
