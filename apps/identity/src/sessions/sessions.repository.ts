import { Injectable } from '@nestjs/common';
import { updateReturning, type Transaction } from '../database/transactions.repository';
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
  async insert(tx: Transaction, session: { id: string; userId: string; jti: string }): Promise<void> {
    await tx.query('INSERT INTO sessions (id, user_id, current_jti) VALUES ($1, $2, $3)', [session.id, session.userId, session.jti]);
  }

  /** The session, locked until the transaction ends: concurrent refreshes of one session take turns. */
  async findForUpdate(tx: Transaction, id: string): Promise<SessionRow | null> {
    const rows: SessionRow[] = await tx.query(`SELECT ${COLUMNS} FROM sessions WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] ?? null;
  }

  async rotate(tx: Transaction, id: string, newJti: string): Promise<void> {
    await tx.query(
      `UPDATE sessions SET previous_jti = current_jti, current_jti = $2, rotated_at = now(), last_used_at = now() WHERE id = $1`,
      [id, newJti],
    );
  }

  async touch(tx: Transaction, id: string): Promise<void> {
    await tx.query('UPDATE sessions SET last_used_at = now() WHERE id = $1', [id]);
  }

  /** Revokes the user's live sessions (all of them, or all but one) and returns their ids. */
  async revokeOfUser(tx: Transaction, userId: string, exceptSessionId: string | null): Promise<string[]> {
    const rows = await updateReturning<{ id: string }>(
      tx,
      `UPDATE sessions SET revoked_at = now()
       WHERE user_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id <> $2::uuid)
       RETURNING id`,
      [userId, exceptSessionId],
    );
    return rows.map((row) => row.id);
  }

  /** Revokes one session of the user; false if it is not theirs or was already revoked. */
  async revoke(tx: Transaction, userId: string, sessionId: string): Promise<boolean> {
    const rows = await updateReturning<{ id: string }>(
      tx,
      'UPDATE sessions SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id',
      [sessionId, userId],
    );
    return rows.length > 0;
  }
}
