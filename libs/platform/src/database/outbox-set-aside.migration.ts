import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the outbox relay keeps of a row JetStream did not take (OutboxRelay.relayOnce): how often it was refused and
 * since when, the last reason, when it is next offered, and when the relay set it aside. Columns only, with constant
 * defaults: a change of the catalogue, however many rows the outbox holds. The pending index stays as it is: its
 * predicate (`published_at IS NULL`) still covers the relay's read, so replicas of the version before keep using it
 * while a rollout runs.
 */
export class OutboxSetAside1765700000000 implements MigrationInterface {
  name = 'OutboxSetAside1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE outbox
        ADD COLUMN refusals integer NOT NULL DEFAULT 0,
        ADD COLUMN first_refused_at timestamptz,
        ADD COLUMN last_refusal text,
        ADD COLUMN retry_at timestamptz,
        ADD COLUMN set_aside_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE outbox DROP COLUMN refusals, DROP COLUMN first_refused_at, DROP COLUMN last_refusal, DROP COLUMN retry_at, DROP COLUMN set_aside_at',
    );
  }
}
