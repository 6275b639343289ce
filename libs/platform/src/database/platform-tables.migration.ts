import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transactional outbox and the idempotent-consumer ledger every service carries in its own schema.
 * WARNING: table names are read by the outbox relay and the event consumers; renaming them loses events.
 */
export class OutboxAndProcessedEvents1763856000000 implements MigrationInterface {
  name = 'OutboxAndProcessedEvents1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE outbox (
        id uuid PRIMARY KEY,
        subject text NOT NULL,
        envelope jsonb NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    // The relay only ever scans what is still unpublished, oldest first.
    await queryRunner.query('CREATE INDEX outbox_pending_idx ON outbox (created_at, id) WHERE published_at IS NULL');
    await queryRunner.query('CREATE INDEX outbox_published_idx ON outbox (published_at) WHERE published_at IS NOT NULL');
    await queryRunner.query(`
      CREATE TABLE processed_events (
        consumer text NOT NULL,
        event_id uuid NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`);
    await queryRunner.query('CREATE INDEX processed_events_processed_at_idx ON processed_events (processed_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE processed_events');
    await queryRunner.query('DROP TABLE outbox');
  }
}
