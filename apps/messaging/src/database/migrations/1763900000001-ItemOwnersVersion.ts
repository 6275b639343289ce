import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ItemOwnersVersion1763900000001 implements MigrationInterface {
  name = 'ItemOwnersVersion1763900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The item's version this row reflects: a projection applies an event only if it is newer (applyIfNewer).
    await queryRunner.query('ALTER TABLE item_owners ADD COLUMN version integer NOT NULL DEFAULT 0');
    // A deleted item stays as a tombstone, so a late event of it cannot bring it back. A deletion that arrives
    // before the item's creation leaves a tombstone without an owner.
    await queryRunner.query('ALTER TABLE item_owners ADD COLUMN deleted_at timestamptz');
    await queryRunner.query('ALTER TABLE item_owners ALTER COLUMN owner_user_id DROP NOT NULL, ALTER COLUMN claimed_at DROP NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM item_owners WHERE owner_user_id IS NULL');
    await queryRunner.query('ALTER TABLE item_owners ALTER COLUMN owner_user_id SET NOT NULL, ALTER COLUMN claimed_at SET NOT NULL');
    await queryRunner.query('ALTER TABLE item_owners DROP COLUMN deleted_at');
    await queryRunner.query('ALTER TABLE item_owners DROP COLUMN version');
  }
}
