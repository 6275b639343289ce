import type { MigrationInterface, QueryRunner } from 'typeorm';

// The retention rules find silent conversations by their last activity (the expression they filter on), in batches, every hour.
export class RetentionIndexes1764900000001 implements MigrationInterface {
  name = 'RetentionIndexes1764900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX conversations_last_activity_idx ON conversations ((coalesce(last_message_at, created_at)))');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX conversations_last_activity_idx');
  }
}
