import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateMessageMailWindows1764200000000 implements MigrationInterface {
  name = 'CreateMessageMailWindows1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The owner gets at most one new-message e-mail per conversation per 15 minutes (RELIABILITY A4): the window in
    // force per conversation, and the event that opened it (its id names the one e-mail job of the window).
    await queryRunner.query(`
      CREATE TABLE message_mail_windows (
        conversation_id uuid PRIMARY KEY,
        event_id uuid NOT NULL,
        started_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE message_mail_windows');
  }
}
