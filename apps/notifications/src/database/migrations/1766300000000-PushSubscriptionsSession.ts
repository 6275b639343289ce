import type { MigrationInterface, QueryRunner } from 'typeorm';

// The session an owner registered a subscription from: when identity revokes that session
// (`identity.sessions.revoked.v1`), its browser's subscription goes. Null for a finder's, and for an owner's stored
// before this column (those stay until unregistered, re-registered, or the account is erased).
export class PushSubscriptionsSession1766300000000 implements MigrationInterface {
  name = 'PushSubscriptionsSession1766300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE push_subscriptions ADD COLUMN session_id uuid');
    await queryRunner.query('CREATE INDEX push_subscriptions_session ON push_subscriptions (session_id) WHERE session_id IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX push_subscriptions_session');
    await queryRunner.query('ALTER TABLE push_subscriptions DROP COLUMN session_id');
  }
}
