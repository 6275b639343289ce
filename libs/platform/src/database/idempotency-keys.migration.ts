import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The results of requests sent with an Idempotency-Key, so a retry gets the first answer (libs/platform/src/idempotency).
 * WARNING: the table name is read by IdempotencyKeys; renaming it forgets every stored result.
 */
export class IdempotencyKeys1763856000001 implements MigrationInterface {
  name = 'IdempotencyKeys1763856000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    // `response` is written in the transaction that claimed the key, so a committed row always has one.
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        scope text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, key)
      )`);
    // The hourly purge of keys past their retry window.
    await queryRunner.query('CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE idempotency_keys');
  }
}
