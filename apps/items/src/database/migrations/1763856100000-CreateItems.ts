import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateItems1763856100000 implements MigrationInterface {
  name = 'CreateItems1763856100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A tag is minted unclaimed (no owner, no name) and becomes an item when claimed; both change together.
    await queryRunner.query(`
      CREATE TABLE items (
        code char(16) PRIMARY KEY,
        name varchar(100),
        reward_cents integer CHECK (reward_cents >= 0),
        owner_user_id uuid,
        claimed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT items_claimed_has_owner CHECK ((owner_user_id IS NULL) = (claimed_at IS NULL))
      )`);
    await queryRunner.query('CREATE INDEX items_owner_idx ON items (owner_user_id, claimed_at) WHERE owner_user_id IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE items');
  }
}
