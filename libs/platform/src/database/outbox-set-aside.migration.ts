import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the outbox relay keeps of a row JetStream refuses while it takes the rows around it (a subject no stream
 * stores, an envelope over NATS's size limit): how often and since when, the last reason, and when the relay set the
 * row aside (OutboxRelay.relayBatch). The pending index leaves set-aside rows out, as the relay's read does.
 */
export class OutboxSetAside1765700000000 implements MigrationInterface {
  name = 'OutboxSetAside1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Constant defaults: a change of the catalogue only, however many rows the outbox holds.
    await queryRunner.query(`
      ALTER TABLE outbox
        ADD COLUMN refusals integer NOT NULL DEFAULT 0,
        ADD COLUMN first_refused_at timestamptz,
        ADD COLUMN last_refusal text,
        ADD COLUMN set_aside_at timestamptz`);
    await queryRunner.query('DROP INDEX outbox_pending_idx');
    await queryRunner.query('CREATE INDEX outbox_pending_idx ON outbox (created_at, id) WHERE published_at IS NULL AND set_aside_at IS NULL');
    await queryRunner.query('CREATE INDEX outbox_set_aside_idx ON outbox (set_aside_at) WHERE set_aside_at IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX outbox_set_aside_idx');
    await queryRunner.query('DROP INDEX outbox_pending_idx');
    await queryRunner.query('CREATE INDEX outbox_pending_idx ON outbox (created_at, id) WHERE published_at IS NULL');
    await queryRunner.query('ALTER TABLE outbox DROP COLUMN refusals, DROP COLUMN first_refused_at, DROP COLUMN last_refusal, DROP COLUMN set_aside_at');
  }
}
