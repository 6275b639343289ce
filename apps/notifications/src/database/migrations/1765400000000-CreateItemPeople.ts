import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateItemPeople1765400000000 implements MigrationInterface {
  name = 'CreateItemPeople1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Who is told of an item: its owner and co-owners as items last said (`items.item.people-changed.v1`), as of the
    // item's version, so a late event never undoes a later change. A deleted item keeps its code and version only
    // (no one), so a late people-changed event cannot bring its people back.
    await queryRunner.query(`
      CREATE TABLE item_people (
        item_code text PRIMARY KEY,
        owner_user_id uuid,
        co_owner_user_ids uuid[] NOT NULL DEFAULT '{}',
        version bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The erasure of a user finds their items by owner and by co-owner.
    await queryRunner.query('CREATE INDEX item_people_owner_user_id_idx ON item_people (owner_user_id)');
    await queryRunner.query('CREATE INDEX item_people_co_owner_user_ids_idx ON item_people USING gin (co_owner_user_ids)');
    // How one person of an item is told of it. No row: both on (the default nobody has to store).
    await queryRunner.query(`
      CREATE TABLE item_notification_settings (
        item_code text NOT NULL,
        user_id uuid NOT NULL,
        email boolean NOT NULL,
        push boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (item_code, user_id)
      )`);
    await queryRunner.query('CREATE INDEX item_notification_settings_user_id_idx ON item_notification_settings (user_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE item_notification_settings');
    await queryRunner.query('DROP TABLE item_people');
  }
}
