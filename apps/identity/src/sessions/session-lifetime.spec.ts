import { decideRefresh, ROTATION_GRACE_MS, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, type SessionState } from './session-lifetime';

const now = new Date('2026-11-23T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const session = (overrides: Partial<SessionState> = {}): SessionState => ({
  userId: 'u1',
  currentJti: 'current',
  previousJti: 'previous',
  rotatedAt: ago(1000),
  createdAt: ago(60_000),
  lastUsedAt: ago(1000),
  revokedAt: null,
  ...overrides,
});

describe('decideRefresh', () => {
  it('rotates the current token', () => {
    expect(decideRefresh(session(), { userId: 'u1', jti: 'current' }, now)).toBe('rotate');
  });

  it('reissues for a token rotated away within the grace', () => {
    expect(decideRefresh(session({ rotatedAt: ago(ROTATION_GRACE_MS) }), { userId: 'u1', jti: 'previous' }, now)).toBe('reissue');
  });

  it('treats the rotated-away token after the grace as reuse', () => {
    expect(decideRefresh(session({ rotatedAt: ago(ROTATION_GRACE_MS + 1) }), { userId: 'u1', jti: 'previous' }, now)).toBe('reuse');
  });

  it('treats an older token as reuse', () => {
    expect(decideRefresh(session(), { userId: 'u1', jti: 'older' }, now)).toBe('reuse');
  });

  it('treats a token of another user for this session as reuse', () => {
    expect(decideRefresh(session(), { userId: 'u2', jti: 'current' }, now)).toBe('reuse');
  });

  it('refuses a revoked session', () => {
    expect(decideRefresh(session({ revokedAt: ago(1) }), { userId: 'u1', jti: 'current' }, now)).toBe('expired');
  });

  it('refuses a session idle for more than 7 days', () => {
    expect(decideRefresh(session({ lastUsedAt: ago(SESSION_IDLE_MS + 1) }), { userId: 'u1', jti: 'current' }, now)).toBe('expired');
    expect(decideRefresh(session({ lastUsedAt: ago(SESSION_IDLE_MS - 1000) }), { userId: 'u1', jti: 'current' }, now)).toBe('rotate');
  });

  it('refuses a session older than 30 days however much it is used', () => {
    expect(decideRefresh(session({ createdAt: ago(SESSION_ABSOLUTE_MS + 1) }), { userId: 'u1', jti: 'current' }, now)).toBe('expired');
  });
});
