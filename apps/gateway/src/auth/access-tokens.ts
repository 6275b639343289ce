import type { KeyObject } from 'node:crypto';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ResponseCode, revokedSessionKey } from '@homing/contracts';
import { InjectConfig, InvalidAccessTokenError, RedisClient, verificationKeysOf, verifyAccessToken } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import type { AuthenticatedUser } from './authenticated-user';
import { VerifiedTokens } from './verified-tokens';

/** The bearer token of a request, or null; a malformed Authorization header counts as none. */
export function bearerTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/.exec(header.trim());
  return match ? match[1] : null;
}

/**
 * Who an access token is: ES256, verified with identity's public key (and the previous one while keys rotate), and a
 * session that is not revoked. The auth guard's check, and the plain routes' (the scan) without the guard.
 */
@Injectable()
export class AccessTokens implements OnModuleDestroy {
  // Parsed once: a PEM string would be parsed again on every request.
  private readonly verificationKeys: KeyObject[];
  // A token's signature is verified once, not on every call that sends it (VerifiedTokens says why and what is kept).
  private readonly verified = new VerifiedTokens();

  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {
    this.verificationKeys = verificationKeysOf(config.JWT_PUBLIC_KEY, config.JWT_PREVIOUS_PUBLIC_KEY);
  }

  onModuleDestroy(): void {
    this.verified.close();
  }

  /** The token's user; 401 for a token that does not verify or whose session was revoked; Redis away: its error (a 503, never a pass). */
  async authenticate(token: string): Promise<AuthenticatedUser> {
    let claims = this.verified.claimsOf(token);
    if (!claims) {
      try {
        claims = verifyAccessToken(token, this.verificationKeys);
      } catch (error) {
        if (error instanceof InvalidAccessTokenError) throw new ApiError(401, ResponseCode.UNAUTHORIZED);
        throw error;
      }
      this.verified.remember(token, claims);
    }
    // Logout, a password change and a reused refresh token revoke the session at once, not when its tokens expire.
    const revoked = await this.redis.redis.exists(revokedSessionKey(this.config.NATS_NAMESPACE, claims.sid));
    if (revoked) throw new ApiError(401, ResponseCode.UNAUTHORIZED);
    return { id: claims.id, email: claims.email, isAdmin: claims.is_admin, sessionId: claims.sid };
  }

  /** On a public route: the caller if they sent a valid token, else null (anyone may call; a bad token makes them anonymous). */
  async viewerOf(request: FastifyRequest): Promise<AuthenticatedUser | null> {
    const token = bearerTokenOf(request);
    if (!token) return null;
    return this.authenticate(token).catch(() => null);
  }
}
