import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ReplyAddressesByUser1766000000000 implements MigrationInterface {
  name = 'ReplyAddressesByUser1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // An erased account's reply addresses go by its id (a co-owner's, on conversations that stay): one row per e-mail to
    // an owner, so the erasure must not read the whole table.
    await queryRunner.query('CREATE INDEX reply_addresses_user_id ON reply_addresses (user_id) WHERE user_id IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX reply_addresses_user_id');
  }
}
