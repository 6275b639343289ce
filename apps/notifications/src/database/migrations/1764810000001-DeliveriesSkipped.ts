import type { MigrationInterface, QueryRunner } from 'typeorm';

export class DeliveriesSkipped1764810000001 implements MigrationInterface {
  name = 'DeliveriesSkipped1764810000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    // `skipped`: a delayed e-mail that found its messages read by the time it ran, and so sent nothing.
    await queryRunner.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check');
    await queryRunner.query("ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN ('sending', 'sent', 'failed', 'skipped'))");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("UPDATE deliveries SET status = 'failed' WHERE status = 'skipped'");
    await queryRunner.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check');
    await queryRunner.query("ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN ('sending', 'sent', 'failed'))");
  }
}
