import { Injectable } from '@nestjs/common';
import { ACCESS_TOKEN_LIFETIME_SECONDS, ResponseCode, revokedSessionKey } from '@homing/contracts';
import { CLOCK_TOLERANCE_SECONDS, RedisClient, RpcError, InjectConfig } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';

// As long as an access token of the session can still be accepted by a gateway; after that the token is refused
// for its age alone.
const REVOKED_KEY_TTL_SECONDS = ACCESS_TOKEN_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS;

/**
 * Tells the gateways that sessions are revoked (a Redis key each, checked on every authenticated request).
 * Called inside the transaction that marks them revoked, before it commits: if Redis is away the request fails
 * with 503 and the transaction rolls back, so PostgreSQL never holds a revocation the gateways do not know.
 */
@Injectable()
export class SessionRevocations {
  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: IdentityConfig,
  ) {}

  async announce(sessionIds: string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    const pipeline = this.redis.redis.multi();
    for (const id of sessionIds) pipeline.set(revokedSessionKey(this.config.NATS_NAMESPACE, id), '1', 'EX', REVOKED_KEY_TTL_SECONDS);
    try {
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('Redis transaction discarded');
    } catch {
      throw new RpcError({ status: 503, response_code: ResponseCode.SERVICE_UNAVAILABLE, message: 'A service is temporarily unavailable. Try again shortly.' });
    }
  }
}
