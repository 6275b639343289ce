import { createPrivateKey, createPublicKey, type KeyObject, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { ResponseCode } from '@homing/contracts';
import { RpcError, signAccessToken, verificationKeysOf, verifyAccessToken, Database, InjectConfig, type Transaction } from '@homing/platform';
import { invalidCredentials } from '../accounts/credentials';
import type { UserRow } from '../accounts/users.repository';
import { UsersRepository } from '../accounts/users.repository';
import type { IdentityConfig } from '../config/identity.config';
import { decideRefresh } from './session-lifetime';
import { SessionRevocations } from './session-revocations';
import { SessionsRepository } from './sessions.repository';

export type TokenUser = Pick<UserRow, 'id' | 'email' | 'isAdmin'>;

const sessionExpired = () => new RpcError({ status: 401, response_code: ResponseCode.SESSION_EXPIRED, message: 'Your session has expired. Log in again.' });

/** Sessions and their access tokens: open at login, rotate on refresh (with reuse detection), revoke. */
@Injectable()
export class SessionsService {
  private readonly verificationKeys: KeyObject[];
  // Parsed once: a PEM would be parsed again on every token signed (signAccessToken).
  private readonly signingKey: KeyObject;

  constructor(
    private readonly database: Database,
    private readonly sessions: SessionsRepository,
    private readonly users: UsersRepository,
    private readonly revocations: SessionRevocations,
    @InjectConfig() private readonly config: IdentityConfig,
  ) {
    this.signingKey = createPrivateKey(config.JWT_PRIVATE_KEY);
    this.verificationKeys = verificationKeysOf(createPublicKey(this.signingKey), config.JWT_PREVIOUS_PUBLIC_KEY);
  }

  /**
   * Opens a session for the user inside the caller's transaction and returns its first access token. A user whose
   * account was erased since the caller read them gets the answer of an unknown address (401), not a database error.
   * `passkeyId`: the passkey it is opened with, whose deletion revokes it (`revokeOpenedWith`).
   */
  async open(tx: Transaction, user: TokenUser, { passkeyId = null }: { passkeyId?: string | null } = {}): Promise<string> {
    const session = { id: uuidv7(), userId: user.id, jti: newJti(), passkeyId };
    if (!(await this.sessions.insert(tx, session))) throw invalidCredentials();
    return this.sign(user, session.id, session.jti);
  }

  /**
   * A new token for a token of a live session, even an expired one (ARCHITECTURE §6). The session's row is
   * locked while deciding, so concurrent refreshes of one token make one rotation and the others a token for it.
   */
  async refresh(token: string): Promise<string> {
    let claims: { id: string; sid: string; jti: string };
    try {
      claims = verifyAccessToken(token, this.verificationKeys, { ignoreExpiration: true });
    } catch {
      throw sessionExpired();
    }
    const refreshed = await this.database.transaction(async (tx) => {
      const session = await this.sessions.findForUpdate(tx, claims.sid);
      if (!session) return null;
      const decision = decideRefresh(session, { userId: claims.id, jti: claims.jti }, session.now);
      if (decision === 'expired') return null;
      if (decision === 'reuse') {
        // A token rotated away is presented again: someone holds a copy. End the session for both holders.
        await this.sessions.revoke(tx, session.userId, session.id);
        await this.revocations.announce(tx, session.userId, [session.id]);
        return null;
      }
      const user = await this.users.findById(tx, session.userId);
      if (!user) return null;
      if (decision === 'reissue') {
        await this.sessions.touch(tx, session.id);
        return this.sign(user, session.id, session.currentJti);
      }
      const jti = newJti();
      await this.sessions.rotate(tx, session.id, jti);
      return this.sign(user, session.id, jti);
    });
    if (refreshed === null) throw sessionExpired();
    return refreshed;
  }

  async logout(userId: string, sessionId: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      if (await this.sessions.revoke(tx, userId, sessionId)) await this.revocations.announce(tx, userId, [sessionId]);
    });
  }

  /** Revokes the user's sessions (all, or all but the one they act from) inside the caller's transaction. */
  async revokeAll(tx: Transaction, userId: string, exceptSessionId: string | null = null): Promise<void> {
    const revoked = await this.sessions.revokeOfUser(tx, userId, exceptSessionId);
    await this.revocations.announce(tx, userId, revoked);
  }

  /**
   * Revokes the user's sessions opened with the passkey, inside the caller's transaction, which must hold the passkey's
   * row (a log-in with it in flight then commits first, and its session is seen here) and delete it afterwards.
   */
  async revokeOpenedWith(tx: Transaction, userId: string, passkeyId: string): Promise<void> {
    const revoked = await this.sessions.revokeOpenedWith(tx, userId, passkeyId);
    await this.revocations.announce(tx, userId, revoked);
  }

  private sign(user: TokenUser, sessionId: string, jti: string): string {
    return signAccessToken({ id: user.id, email: user.email, is_admin: user.isAdmin, sid: sessionId, jti }, this.signingKey);
  }
}

function newJti(): string {
  return randomBytes(16).toString('base64url');
}
