import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateConversations1764000000000 implements MigrationInterface {
  name = 'CreateConversations1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One finder's conversation with an item's owner. The finder proves who they are with a 128-bit token kept by
    // their browser; only its SHA-256 is stored. The address is only for relaying replies, never shown.
    await queryRunner.query(`
      CREATE TABLE conversations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        item_code char(16) NOT NULL,
        finder_token_hash text NOT NULL UNIQUE,
        finder_email text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_message_at timestamptz
      )`);
    await queryRunner.query('CREATE INDEX conversations_item_code ON conversations (item_code, last_message_at DESC NULLS LAST, created_at DESC)');
    // The identity id orders messages and is what a poll's `after=` names.
    await queryRunner.query(`
      CREATE TABLE messages (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        author text NOT NULL CHECK (author IN ('finder', 'owner')),
        content text NOT NULL CHECK (char_length(content) BETWEEN 1 AND 2000),
        created_at timestamptz NOT NULL DEFAULT now(),
        read_at timestamptz
      )`);
    await queryRunner.query('CREATE INDEX messages_conversation_id ON messages (conversation_id, id)');
    // Unread counts: the owner's badge polls this.
    await queryRunner.query("CREATE INDEX messages_unread ON messages (conversation_id) WHERE author = 'finder' AND read_at IS NULL");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE messages');
    await queryRunner.query('DROP TABLE conversations');
  }
}
