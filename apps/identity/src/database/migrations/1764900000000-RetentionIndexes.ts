import type { MigrationInterface, QueryRunner } from 'typeorm';

// The retention rules find what is past its limit by these times, in batches, every hour: without them each batch would scan the whole table.
export class RetentionIndexes1764900000000 implements MigrationInterface {
  name = 'RetentionIndexes1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX sessions_created_at_idx ON sessions (created_at)');
    await queryRunner.query('CREATE INDEX password_tokens_expires_at_idx ON password_tokens (expires_at)');
    await queryRunner.query('CREATE INDEX mail_sends_sent_at_idx ON mail_sends (sent_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX mail_sends_sent_at_idx, password_tokens_expires_at_idx, sessions_created_at_idx');
  }
}
