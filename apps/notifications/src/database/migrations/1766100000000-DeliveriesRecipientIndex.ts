import type { MigrationInterface, QueryRunner } from 'typeorm';

// Delivery records are found by their recipient, the job id's last part (`right(job_id, 37)`: '_' and a UUID): by an
// export and an erasure, and when a push subscription goes (its records go with it).
export class DeliveriesRecipientIndex1766100000000 implements MigrationInterface {
  name = 'DeliveriesRecipientIndex1766100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX deliveries_recipient_idx ON deliveries (right(job_id, 37))');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX deliveries_recipient_idx');
  }
}
