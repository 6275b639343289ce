import type { MigrationInterface, QueryRunner } from 'typeorm';

export class FinderLanguageAndTokens1764800000000 implements MigrationInterface {
  name = 'FinderLanguageAndTokens1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The language the finder's browser spoke when they wrote: their e-mails and pushes are worded in it.
    await queryRunner.query("ALTER TABLE conversations ADD COLUMN finder_language text NOT NULL DEFAULT 'en' CHECK (finder_language IN ('en', 'nl', 'es'))");
    // More tokens of a conversation besides the first browser's (conversations.finder_token_hash, which keeps
    // working): `finder` tokens of other browsers, given in exchange for a resume link, and the `resume` tokens of
    // the links e-mailed to the finder. Only SHA-256 hashes; the rows go with their conversation.
    await queryRunner.query(`
      CREATE TABLE finder_tokens (
        token_hash text PRIMARY KEY,
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('finder', 'resume')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX finder_tokens_conversation_id ON finder_tokens (conversation_id)');
    // A finder asking for a fresh link is found by the address they left on the item's conversations.
    await queryRunner.query('CREATE INDEX conversations_finder_email ON conversations (item_code, lower(finder_email)) WHERE finder_email IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX conversations_finder_email');
    await queryRunner.query('DROP TABLE finder_tokens');
    await queryRunner.query('ALTER TABLE conversations DROP COLUMN finder_language');
  }
}
