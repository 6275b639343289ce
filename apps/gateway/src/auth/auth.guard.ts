import type { KeyObject } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ResponseCode, revokedSessionKey } from '@homing/contracts';
import { InjectConfig, InvalidAccessTokenError, IS_PUBLIC_KEY, RedisClient, verificationKeysOf, verifyAccessToken } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import type { AuthenticatedRequest, AuthenticatedUser } from './authenticated-user';

/** The bearer token of a request, or null; a malformed Authorization header counts as none. */
export function bearerTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/.exec(header.trim());
  return match ? match[1] : null;
}

/**
 * The one authentication seam of the gateway, global: every route requires a valid access token (ES256, verified
 * with identity's public key) whose session is not revoked, unless it is marked `@Public()`. On a public route a
 * valid token still tells who the caller is (an owner scanning their own tag); an invalid one makes them anonymous.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {
    this.verificationKeys = verificationKeysOf(config.JWT_PUBLIC_KEY, config.JWT_PREVIOUS_PUBLIC_KEY);
  }

  // Parsed once: a PEM string would be parsed again on every request.
  private readonly verificationKeys: KeyObject[];

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()]) ?? false;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    request.publicRoute = isPublic;
    const token = bearerTokenOf(request);
    if (!token) {
      if (isPublic) return true;
      throw new ApiError(401, ResponseCode.UNAUTHORIZED);
    }
    try {
      request.user = await this.authenticate(token);
    } catch (error) {
      if (isPublic) return true;
      throw error;
    }
    return true;
  }

  private async authenticate(token: string): Promise<AuthenticatedUser> {
    let claims;
    try {
      claims = verifyAccessToken(token, this.verificationKeys);
    } catch (error) {
      if (error instanceof InvalidAccessTokenError) throw new ApiError(401, ResponseCode.UNAUTHORIZED);
      throw error;
    }
    // Logout, a password change and a reused refresh token revoke the session at once, not when its tokens expire.
    // Redis away: the error becomes a 503, never a pass.
    const revoked = await this.redis.redis.exists(revokedSessionKey(this.config.NATS_NAMESPACE, claims.sid));
    if (revoked) throw new ApiError(401, ResponseCode.UNAUTHORIZED);
    return { id: claims.id, email: claims.email, isAdmin: claims.is_admin, sessionId: claims.sid };
  }
}
