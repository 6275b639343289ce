import { Injectable } from '@nestjs/common';
import { PASSKEY_CHALLENGE_TTL_SECONDS } from '@homing/contracts';
import { Database, type Transaction } from '@homing/platform';

export type DeviceType = 'singleDevice' | 'multiDevice';

export interface PasskeyRow {
  id: string;
  userId: string;
  credentialId: string;
  publicKey: Buffer;
  /**
   * bigint in the table: WebAuthn's counter is an unsigned 32-bit number, up to 2^32 - 1, past a signed int. Read as
   * float8, which pg answers as a number, exact up to 2^53.
   */
  counter: number;
  transports: string[];
  deviceType: DeviceType;
  backedUp: boolean;
  aaguid: string | null;
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface NewPasskey {
  id: string;
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  deviceType: DeviceType;
  backedUp: boolean;
  aaguid: string | null;
}

export interface TakenChallenge {
  userId: string | null;
  sessionId: string | null;
  live: boolean;
}

const COLUMNS = `id, user_id AS "userId", credential_id AS "credentialId", public_key AS "publicKey", counter::float8 AS counter, transports,
  device_type AS "deviceType", backed_up AS "backedUp", aaguid, name, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

/** The only place that reads or writes passkeys and their ceremonies' challenges. */
@Injectable()
export class PasskeysRepository {
  constructor(private readonly database: Database) {}

  async ofUser(tx: Transaction | undefined, userId: string): Promise<PasskeyRow[]> {
    return this.database.rows<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, [userId], tx);
  }

  async byCredentialId(tx: Transaction | undefined, credentialId: string): Promise<PasskeyRow | null> {
    return (await this.database.one<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = $1`, [credentialId], tx)) ?? null;
  }

  /** The user's passkeys counted under a lock of their row, so concurrent registrations cannot pass the limit together. */
  async countOfLockedUser(tx: Transaction, userId: string): Promise<number | null> {
    const user = await this.database.one<{ id: string }>('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId], tx);
    if (!user) return null;
    const row = await this.database.one<{ count: number }>('SELECT count(*)::int AS count FROM passkeys WHERE user_id = $1', [userId], tx);
    return row?.count ?? 0;
  }

  /** The new passkey; null when its credential is registered already (to anyone). */
  async insert(tx: Transaction, passkey: NewPasskey): Promise<PasskeyRow | null> {
    return (
      (await this.database.one<PasskeyRow>(
        `INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, aaguid)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (credential_id) DO NOTHING
         RETURNING ${COLUMNS}`,
        [passkey.id, passkey.userId, passkey.credentialId, Buffer.from(passkey.publicKey), passkey.counter, passkey.transports, passkey.deviceType, passkey.backedUp, passkey.aaguid],
        tx,
      )) ?? null
    );
  }


  async rename(tx: Transaction | undefined, userId: string, id: string, name: string): Promise<PasskeyRow | null> {
    return (await this.database.one<PasskeyRow>(`UPDATE passkeys SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`, [id, userId, name], tx)) ?? null;
  }

  /**
   * Locks the user's passkey for its deletion; false when the user has no such passkey. The user's row first (not FOR
   * UPDATE: a log-in's new session only key-shares it): an erasure and a password set lock it before sessions and
   * passkeys, so the deletion takes its turn with them instead of deadlocking. Then the passkey's row, which a log-in
   * with it holds from recording its use to committing its session: the deletion waits for that session to be there.
   */
  async lockForDeletion(tx: Transaction, userId: string, id: string): Promise<boolean> {
    if (!(await this.database.one('SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId], tx))) return false;
    return (await this.database.one('SELECT id FROM passkeys WHERE id = $1 AND user_id = $2 FOR UPDATE', [id, userId], tx)) !== undefined;
  }

  async delete(tx: Transaction, userId: string, id: string): Promise<PasskeyRow | null> {
    return (await this.database.one<PasskeyRow>(`DELETE FROM passkeys WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`, [id, userId], tx)) ?? null;
  }

  /**
   * Deletes every passkey of the user (a password set with an e-mailed link: the address's owner takes the account
   * back, and passkeys added before it may be someone else's). The deleted rows, for their e-mails.
   */
  async deleteAllOfUser(tx: Transaction, userId: string): Promise<PasskeyRow[]> {
    return this.database.rows<PasskeyRow>(`DELETE FROM passkeys WHERE user_id = $1 RETURNING ${COLUMNS}`, [userId], tx);
  }

  /**
   * Records a log-in's counter and backup state, only if the counter moved on since it was read (or the authenticator
   * keeps none: 0 then 0). Two answers signed with one counter, verified side by side, record one: the other is false.
   */
  async recordUse(tx: Transaction, id: string, seenCounter: number, newCounter: number, backedUp: boolean): Promise<boolean> {
    const updated = await this.database.affected(
      `UPDATE passkeys SET counter = $3, backed_up = $4, last_used_at = now()
       WHERE id = $1 AND counter = $2 AND ($3 > $2 OR ($3 = 0 AND $2 = 0))`,
      [id, seenCounter, newCounter, backedUp],
      tx,
    );
    return updated > 0;
  }

  async saveChallenge(challenge: string, owner: { purpose: 'register'; userId: string; sessionId: string } | { purpose: 'login' }): Promise<void> {
    const [userId, sessionId] = owner.purpose === 'register' ? [owner.userId, owner.sessionId] : [null, null];
    await this.database.affected(
      `INSERT INTO passkey_challenges (challenge, purpose, user_id, session_id, expires_at) VALUES ($1, $2, $3, $4, now() + $5 * interval '1 second')`,
      [challenge, owner.purpose, userId, sessionId, PASSKEY_CHALLENGE_TTL_SECONDS],
    );
  }

  /** Takes a challenge for good (single use, even when it turns out expired); null when it was never issued or is taken. */
  async takeChallenge(challenge: string, purpose: 'register' | 'login'): Promise<TakenChallenge | null> {
    return (
      (await this.database.one<TakenChallenge>(
        `DELETE FROM passkey_challenges WHERE challenge = $1 AND purpose = $2
         RETURNING user_id AS "userId", session_id AS "sessionId", expires_at > now() AS live`,
        [challenge, purpose],
      )) ?? null
    );
  }
}
