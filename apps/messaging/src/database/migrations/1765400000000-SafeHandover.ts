import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SafeHandover1765400000000 implements MigrationInterface {
  name = 'SafeHandover1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Contact consent: when each side agreed to share contact details (until both have, the other side reads them
    // masked); the hand-over: when the finder closed the case with the owner's code, and the wrong codes of the hour.
    await queryRunner.query('ALTER TABLE conversations ADD COLUMN finder_consented_at timestamptz');
    await queryRunner.query('ALTER TABLE conversations ADD COLUMN owner_consented_at timestamptz');
    await queryRunner.query('ALTER TABLE conversations ADD COLUMN closed_at timestamptz');
    await queryRunner.query('ALTER TABLE conversations ADD COLUMN handover_failures integer NOT NULL DEFAULT 0 CHECK (handover_failures >= 0)');
    await queryRunner.query('ALTER TABLE conversations ADD COLUMN handover_failures_since timestamptz');
    await queryRunner.query('CREATE INDEX conversations_closed_at ON conversations (closed_at) WHERE closed_at IS NOT NULL');
    // The key of an item's daily hand-over codes: random, made at the owner's first request, gone with the item.
    await queryRunner.query('ALTER TABLE item_owners ADD COLUMN handover_secret bytea');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE item_owners DROP COLUMN handover_secret');
    await queryRunner.query('DROP INDEX conversations_closed_at');
    for (const column of ['handover_failures_since', 'handover_failures', 'closed_at', 'owner_consented_at', 'finder_consented_at']) await queryRunner.query(`ALTER TABLE conversations DROP COLUMN ${column}`);
  }
}
