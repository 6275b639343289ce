import type { MigrationInterface, QueryRunner } from 'typeorm';

// Passkeys (WebAuthn credentials) and the challenges of their ceremonies. Both go with their user (cascade).
export class Passkeys1765600000000 implements MigrationInterface {
  name = 'Passkeys1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // credential_id is what the authenticator names the credential by (unique across accounts: one credential, one
    // account). counter: the signature counter last seen, which must grow (0 stays 0 for authenticators without one).
    // device_type/backed_up: the BE and BS flags; BE never changes for a credential, so a change refuses the log-in.
    await queryRunner.query(`
      CREATE TABLE passkeys (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        credential_id text NOT NULL UNIQUE,
        public_key bytea NOT NULL,
        counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
        transports text[] NOT NULL DEFAULT '{}',
        device_type varchar(12) NOT NULL CHECK (device_type IN ('singleDevice', 'multiDevice')),
        backed_up boolean NOT NULL,
        aaguid uuid,
        name varchar(64),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      )`);
    await queryRunner.query('CREATE INDEX passkeys_user_idx ON passkeys (user_id, created_at)');

    // A ceremony's challenge, single use: taken by DELETE … RETURNING, so two answers to one challenge get one row.
    // A registration's is bound to the user and session that asked; a log-in's to nobody (discoverable credentials).
    await queryRunner.query(`
      CREATE TABLE passkey_challenges (
        challenge varchar(128) PRIMARY KEY,
        purpose varchar(12) NOT NULL CHECK (purpose IN ('register', 'login')),
        user_id uuid REFERENCES users (id) ON DELETE CASCADE,
        session_id uuid,
        expires_at timestamptz NOT NULL,
        CHECK ((purpose = 'register') = (user_id IS NOT NULL))
      )`);
    await queryRunner.query('CREATE INDEX passkey_challenges_expires_at_idx ON passkey_challenges (expires_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE passkey_challenges');
    await queryRunner.query('DROP TABLE passkeys');
  }
}
