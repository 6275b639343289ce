import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateDeliveries1764100000000 implements MigrationInterface {
  name = 'CreateDeliveries1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One row per notification job, written before anything is sent (ARCHITECTURE §9): a job that runs again (a
    // retry, a stalled worker's job, a replayed event) finds `sent` and sends nothing. No address, code or link here.
    await queryRunner.query(`
      CREATE TABLE deliveries (
        job_id varchar(200) PRIMARY KEY,
        channel varchar(16) NOT NULL,
        kind varchar(32) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('sending', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 1,
        last_error varchar(200),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE deliveries');
  }
}
