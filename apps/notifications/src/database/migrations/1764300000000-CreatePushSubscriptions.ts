import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreatePushSubscriptions1764300000000 implements MigrationInterface {
  name = 'CreatePushSubscriptions1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A browser's push subscription, for a logged-in owner (user_id) or for the finder of one conversation
    // (conversation_id, from their finder token). The keys encrypt what the push service relays; no names here.
    await queryRunner.query(`
      CREATE TABLE push_subscriptions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid,
        conversation_id uuid,
        endpoint varchar(1024) NOT NULL,
        p256dh varchar(100) NOT NULL,
        auth varchar(40) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((user_id IS NULL) <> (conversation_id IS NULL))
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX push_subscriptions_user_endpoint ON push_subscriptions (user_id, endpoint) WHERE user_id IS NOT NULL');
    await queryRunner.query(
      'CREATE UNIQUE INDEX push_subscriptions_conversation_endpoint ON push_subscriptions (conversation_id, endpoint) WHERE conversation_id IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE push_subscriptions');
  }
}
