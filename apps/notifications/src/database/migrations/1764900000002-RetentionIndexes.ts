import type { MigrationInterface, QueryRunner } from 'typeorm';

// The retention rules find old deliveries and closed mail windows by these times, in batches, every hour.
export class RetentionIndexes1764900000002 implements MigrationInterface {
  name = 'RetentionIndexes1764900000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX deliveries_created_at_idx ON deliveries (created_at)');
    await queryRunner.query('CREATE INDEX message_mail_windows_started_at_idx ON message_mail_windows (started_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX message_mail_windows_started_at_idx, deliveries_created_at_idx');
  }
}
