import type { MigrationInterface, QueryRunner } from 'typeorm';

// The passkey a session was opened with (null: a password, a login code, a link, an activation), kept by every refresh
// (the session's row is rotated in place): deleting the passkey revokes them. SET NULL, so the reference never keeps a
// passkey or an account from being deleted; the revocation reads it first, under the passkey's lock. The index serves
// that revocation and the SET NULL's own lookup of a passkey's sessions.
export class SessionsPasskey1766300000000 implements MigrationInterface {
  name = 'SessionsPasskey1766300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sessions ADD COLUMN passkey_id uuid REFERENCES passkeys (id) ON DELETE SET NULL');
    await queryRunner.query('CREATE INDEX sessions_passkey_idx ON sessions (passkey_id) WHERE passkey_id IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX sessions_passkey_idx');
    await queryRunner.query('ALTER TABLE sessions DROP COLUMN passkey_id');
  }
}
