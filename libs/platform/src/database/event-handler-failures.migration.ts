import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many times a consumer's handler failed on one delivered event (its stream and sequence there), so that the
 * dead-letter threshold counts every replica's tries and survives a restart (EventProcessor). A row lives while its
 * event fails: it is deleted when the event is handled or dead-lettered, and purged a week after its last failure.
 */
export class EventHandlerFailures1766400000000 implements MigrationInterface {
  name = 'EventHandlerFailures1766400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE event_handler_failures (
        consumer text NOT NULL,
        stream text NOT NULL,
        stream_sequence bigint NOT NULL,
        failures integer NOT NULL,
        last_failed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, stream, stream_sequence)
      )`);
    await queryRunner.query('CREATE INDEX event_handler_failures_last_failed_at_idx ON event_handler_failures (last_failed_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE event_handler_failures');
  }
}
