// ARCHITECTURE §6: a session lives while it is used at least once a week, and 30 days at most.
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
// Concurrent refreshes of one token (several tabs, a retried request) arrive just after a rotation: within this
// grace the token rotated away still gets a token for the current one instead of counting as reuse.
export const ROTATION_GRACE_MS = 10_000;

export interface SessionState {
  userId: string;
  currentJti: string;
  previousJti: string | null;
  rotatedAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date;
  revokedAt: Date | null;
}

/**
 * What a refresh with a token (its user and jti) does to its session:
 * - `rotate`: the token is the session's current one: a new jti replaces it;
 * - `reissue`: the token was rotated away moments ago (a concurrent refresh): a token for the current jti;
 * - `reuse`: an older token, or one rotated away longer ago: someone replays a stolen token, revoke the session;
 * - `expired`: the session is revoked, idle too long or too old.
 */
export type RefreshDecision = 'rotate' | 'reissue' | 'reuse' | 'expired';

export function decideRefresh(session: SessionState, token: { userId: string; jti: string }, now: Date): RefreshDecision {
  if (!isAlive(session, now)) return 'expired';
  if (token.userId !== session.userId) return 'reuse';
  if (token.jti === session.currentJti) return 'rotate';
  if (
    token.jti === session.previousJti &&
    session.rotatedAt !== null &&
    now.getTime() - session.rotatedAt.getTime() <= ROTATION_GRACE_MS
  ) {
    return 'reissue';
  }
  return 'reuse';
}

function isAlive(session: Pick<SessionState, 'createdAt' | 'lastUsedAt' | 'revokedAt'>, now: Date): boolean {
  return (
    session.revokedAt === null &&
    now.getTime() - session.lastUsedAt.getTime() <= SESSION_IDLE_MS &&
    now.getTime() - session.createdAt.getTime() <= SESSION_ABSOLUTE_MS
  );
}
