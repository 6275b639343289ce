import { Injectable } from '@nestjs/common';
import { Database, isForeignKeyViolation, type Transaction } from '@homing/platform';
import type { SessionState } from './session-lifetime';

export interface SessionRow extends SessionState {
  id: string;
  /** The database's clock when the row was read: rotation times are the database's too. */
  now: Date;
}

const COLUMNS = `id, user_id AS "userId", current_jti AS "currentJti", previous_jti AS "previousJti", rotated_at AS "rotatedAt",
  created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt", now() AS "now"`;

/** The only place that reads or writes the sessions table. */
@Injectable()
export class SessionsRepository {
  constructor(private readonly database: Database) {}

  /**
   * Adds the session, with the passkey that opened it if one did; false, adding nothing, when its user (or that passkey)
   * is gone: an erasure that committed after the caller read the user (a password checked, a code matched) leaves the
   * foreign key nothing to point at. The caller's transaction is aborted then and must end.
   */
  async insert(tx: Transaction | undefined, session: { id: string; userId: string; jti: string; passkeyId: string | null }): Promise<boolean> {
    try {
      await this.database.affected(
        'INSERT INTO sessions (id, user_id, current_jti, passkey_id) VALUES ($1, $2, $3, $4)',
        [session.id, session.userId, session.jti, session.passkeyId],
        tx,
      );
      return true;
    } catch (error) {
      // The session's foreign keys are its user and its passkey: either gone, nobody is left to log in.
      if (isForeignKeyViolation(error)) return false;
      throw error;
    }
  }

  /** The session, locked until the transaction ends: concurrent refreshes of one session take turns. */
  async findForUpdate(tx: Transaction | undefined, id: string): Promise<SessionRow | null> {
    return (await this.database.one<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1 FOR UPDATE`, [id], tx)) ?? null;
  }

  /**
   * Whether the user's live session was opened (a log-in) within the last `minutes`: null when it is not theirs or was
   * revoked. A refresh does not make a log-in recent.
   */
  async loggedInWithin(tx: Transaction | undefined, userId: string, sessionId: string, minutes: number): Promise<boolean | null> {
    const row = await this.database.one<{ recent: boolean }>(
      `SELECT created_at > now() - $3 * interval '1 minute' AS recent FROM sessions WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
      [sessionId, userId, minutes],
      tx,
    );
    return row?.recent ?? null;
  }

  async rotate(tx: Transaction | undefined, id: string, newJti: string): Promise<void> {
    await this.database.affected(
      `UPDATE sessions SET previous_jti = current_jti, current_jti = $2, rotated_at = now(), last_used_at = now() WHERE id = $1`,
      [id, newJti],
      tx,
    );
  }

  async touch(tx: Transaction | undefined, id: string): Promise<void> {
    await this.database.affected('UPDATE sessions SET last_used_at = now() WHERE id = $1', [id], tx);
  }

  /** Revokes the user's live sessions (all of them, or all but one) and returns their ids. */
  async revokeOfUser(tx: Transaction | undefined, userId: string, exceptSessionId: string | null): Promise<string[]> {
    const rows = await this.database.rows<{ id: string }>(
      `UPDATE sessions SET revoked_at = now()
       WHERE user_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id <> $2::uuid)
       RETURNING id`,
      [userId, exceptSessionId],
      tx,
    );
    return rows.map((row) => row.id);
  }

  /**
   * Revokes the user's live sessions opened with the passkey (refreshes keep the session's row, so their successors
   * too) and returns their ids. Before the passkey's row is deleted: that sets their reference to null.
   */
  async revokeOpenedWith(tx: Transaction, userId: string, passkeyId: string): Promise<string[]> {
    const rows = await this.database.rows<{ id: string }>(
      'UPDATE sessions SET revoked_at = now() WHERE passkey_id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id',
      [passkeyId, userId],
      tx,
    );
    return rows.map((row) => row.id);
  }

  /** Revokes one session of the user; false if it is not theirs or was already revoked. */
  async revoke(tx: Transaction | undefined, userId: string, sessionId: string): Promise<boolean> {
    const revoked = await this.database.affected(
      'UPDATE sessions SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL',
      [sessionId, userId],
      tx,
    );
    return revoked > 0;
  }
}
