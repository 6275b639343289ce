import type { MigrationInterface, QueryRunner } from 'typeorm';

// An owner's subscription is found by its endpoint alone when another owner registers the same browser: the endpoint
// is the browser's, and it goes to the owner who registered it last.
export class PushSubscriptionsOwnerEndpoint1766200000000 implements MigrationInterface {
  name = 'PushSubscriptionsOwnerEndpoint1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX push_subscriptions_owner_endpoint ON push_subscriptions (endpoint) WHERE user_id IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX push_subscriptions_owner_endpoint');
  }
}
