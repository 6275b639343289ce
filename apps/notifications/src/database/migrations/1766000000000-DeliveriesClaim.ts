import type { MigrationInterface, QueryRunner } from 'typeorm';

export class DeliveriesClaim1766000000000 implements MigrationInterface {
  name = 'DeliveriesClaim1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A run claims its job's delivery row before it sends (ARCHITECTURE §9): until `claimed_until`, another run of the
    // same job (a worker that lost its lock is still sending) waits instead of sending too. `claim_token` is the
    // run's own random id, so a run clears only its own claim. Neither says anything about a person.
    await queryRunner.query('ALTER TABLE deliveries ADD COLUMN claimed_until timestamptz, ADD COLUMN claim_token uuid');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE deliveries DROP COLUMN claimed_until, DROP COLUMN claim_token');
  }
}
