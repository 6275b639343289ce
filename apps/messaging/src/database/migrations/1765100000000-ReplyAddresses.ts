import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ReplyAddresses1765100000000 implements MigrationInterface {
  name = 'ReplyAddresses1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The e-mail relay's reply addresses (`c-{token}@RELAY_DOMAIN`): one minted for each e-mail about a conversation,
    // naming its recipient there (the finder, or the owner by user id). Only the token's SHA-256 is kept; the rows go
    // with their conversation, so an erased conversation's addresses answer like unknown ones.
    await queryRunner.query(`
      CREATE TABLE reply_addresses (
        token_hash text PRIMARY KEY,
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        recipient text NOT NULL CHECK (recipient IN ('finder', 'owner')),
        user_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((recipient = 'owner') = (user_id IS NOT NULL))
      )`);
    await queryRunner.query('CREATE INDEX reply_addresses_conversation_id ON reply_addresses (conversation_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE reply_addresses');
  }
}
