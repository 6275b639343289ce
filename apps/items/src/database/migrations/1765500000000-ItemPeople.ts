import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ItemPeople1765500000000 implements MigrationInterface {
  name = 'ItemPeople1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The co-owners of an item (its owner stays `items.owner_user_id`): each person keeps their own account.
    await queryRunner.query(`
      CREATE TABLE item_co_owners (
        item_code char(16) NOT NULL REFERENCES items (code) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        added_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (item_code, user_id)
      )`);
    await queryRunner.query('CREATE INDEX item_co_owners_user_id ON item_co_owners (user_id)');
    // Invitations to share an item or to take it over: the address they went to and the hash of their link's token,
    // valid 7 days and once; kept 30 days after they closed (accepted, cancelled or expired) by `invitations-closed`.
    await queryRunner.query(`
      CREATE TABLE item_invitations (
        id uuid PRIMARY KEY,
        item_code char(16) NOT NULL REFERENCES items (code) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('co-owner', 'transfer')),
        email text NOT NULL CHECK (char_length(email) <= 254),
        token_hash text NOT NULL UNIQUE,
        invited_by uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by uuid,
        cancelled_at timestamptz
      )`);
    await queryRunner.query('CREATE INDEX item_invitations_item_code ON item_invitations (item_code)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE item_invitations');
    await queryRunner.query('DROP TABLE item_co_owners');
  }
}
