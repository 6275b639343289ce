import type { MigrationInterface, QueryRunner } from 'typeorm';

export class HandoverTriesOfItem1766200000000 implements MigrationInterface {
  name = 'HandoverTriesOfItem1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The hand-over tries of the item's hour, across its conversations: a conversation's own 5 wrong codes an hour did
    // not bound a guesser who opens conversation after conversation.
    await queryRunner.query('ALTER TABLE item_owners ADD COLUMN handover_tries integer NOT NULL DEFAULT 0 CHECK (handover_tries >= 0)');
    await queryRunner.query('ALTER TABLE item_owners ADD COLUMN handover_tries_since timestamptz');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE item_owners DROP COLUMN handover_tries_since');
    await queryRunner.query('ALTER TABLE item_owners DROP COLUMN handover_tries');
  }
}
