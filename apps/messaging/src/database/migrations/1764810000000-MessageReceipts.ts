import type { MigrationInterface, QueryRunner } from 'typeorm';

export class MessageReceipts1764810000000 implements MigrationInterface {
  name = 'MessageReceipts1764810000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // When notifications told the other side of the message (notifications.message.delivered.v1); `read_at` (already
    // there) is when the other side opened the thread. `receipt_version` is drawn from the message id sequence at each
    // change of either, so a poll `after=` below it gets the message again.
    await queryRunner.query('ALTER TABLE messages ADD COLUMN delivered_at timestamptz');
    await queryRunner.query('ALTER TABLE messages ADD COLUMN receipt_version bigint');
    await queryRunner.query('CREATE INDEX messages_receipt_version ON messages (conversation_id, receipt_version) WHERE receipt_version IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX messages_receipt_version');
    await queryRunner.query('ALTER TABLE messages DROP COLUMN receipt_version');
    await queryRunner.query('ALTER TABLE messages DROP COLUMN delivered_at');
  }
}
