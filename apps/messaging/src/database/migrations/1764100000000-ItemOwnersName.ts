import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ItemOwnersName1764100000000 implements MigrationInterface {
  name = 'ItemOwnersName1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // What the owner calls the item, from items.item.created.v1 and every rename (items.item.updated.v1). Null for a
    // tag claimed without a name, and for rows projected before creation events carried one, until the next rename.
    await queryRunner.query('ALTER TABLE item_owners ADD COLUMN name text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE item_owners DROP COLUMN name');
  }
}
