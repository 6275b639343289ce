import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateIdentityTables1764000000000 implements MigrationInterface {
  name = 'CreateIdentityTables1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // E-mail addresses are stored lower-cased and unique whatever their case; a user made at activation has no
    // password until they set one. failed_logins/locked_until: the progressive lock (ARCHITECTURE §6).
    await queryRunner.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        email varchar(254) NOT NULL CHECK (email = lower(email)),
        password_hash text,
        language varchar(2) NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'nl', 'es')),
        is_admin boolean NOT NULL DEFAULT false,
        failed_logins integer NOT NULL DEFAULT 0,
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX users_email_key ON users (lower(email))');

    // A session outlives its access tokens: each refresh rotates current_jti; previous_jti is accepted for a short
    // grace after rotated_at, any older token revokes the session (reuse detection).
    await queryRunner.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        current_jti varchar(64) NOT NULL,
        previous_jti varchar(64),
        rotated_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await queryRunner.query('CREATE INDEX sessions_live_by_user_idx ON sessions (user_id) WHERE revoked_at IS NULL');

    // One live login code per user (the primary key): a new one replaces the old. Codes are kept only as hashes;
    // the locator (the code's first characters) lets a wrong code count against the code it was meant to be.
    await queryRunner.query(`
      CREATE TABLE login_codes (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        locator char(2) NOT NULL,
        code_hash char(64) NOT NULL,
        expires_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX login_codes_hash_idx ON login_codes (code_hash)');
    await queryRunner.query('CREATE INDEX login_codes_locator_idx ON login_codes (locator) WHERE used_at IS NULL');

    // Reset links (60 min) and set-password links of users created at activation (7 days), kept only as hashes.
    await queryRunner.query(`
      CREATE TABLE password_tokens (
        token_hash char(64) PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        purpose varchar(8) NOT NULL CHECK (purpose IN ('reset', 'set')),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX password_tokens_user_idx ON password_tokens (user_id)');

    // E-mails asked for on a user's behalf (login codes, reset links), for the per-address limits.
    await queryRunner.query(`
      CREATE TABLE mail_sends (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind varchar(16) NOT NULL,
        sent_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX mail_sends_user_idx ON mail_sends (user_id, sent_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mail_sends, password_tokens, login_codes, sessions, users');
  }
}
