import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ItemOwnersCoOwners1765500000000 implements MigrationInterface {
  name = 'ItemOwnersCoOwners1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The item's co-owners (`items.item.people-changed.v1`), owners to its thread as the owner is: none until items
    // says otherwise, none in a tombstone.
    await queryRunner.query("ALTER TABLE item_owners ADD COLUMN co_owner_user_ids uuid[] NOT NULL DEFAULT '{}'");
    // A co-owner's found items and export look their codes up by their id.
    await queryRunner.query('CREATE INDEX item_owners_co_owner_user_ids ON item_owners USING gin (co_owner_user_ids)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX item_owners_co_owner_user_ids');
    await queryRunner.query('ALTER TABLE item_owners DROP COLUMN co_owner_user_ids');
  }
}
