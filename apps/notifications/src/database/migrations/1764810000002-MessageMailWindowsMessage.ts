import type { MigrationInterface, QueryRunner } from 'typeorm';

export class MessageMailWindowsMessage1764810000002 implements MigrationInterface {
  name = 'MessageMailWindowsMessage1764810000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The message id of the event that opened the window (an id, no content): the delayed e-mail's worker asks
    // messaging whether it or a later message is still unread. Null for windows opened before it was kept.
    await queryRunner.query('ALTER TABLE message_mail_windows ADD COLUMN message_id bigint');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE message_mail_windows DROP COLUMN message_id');
  }
}
