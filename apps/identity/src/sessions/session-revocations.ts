import { Injectable } from '@nestjs/common';
import { ACCESS_TOKEN_LIFETIME_SECONDS, ResponseCode, revokedSessionKey } from '@homing/contracts';
import { CLOCK_TOLERANCE_SECONDS, OutboxWriter, RedisClient, RpcError, InjectConfig, type Transaction } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';

// As long as an access token of the session can still be accepted by a gateway; after that the token is refused
// for its age alone.
const REVOKED_KEY_TTL_SECONDS = ACCESS_TOKEN_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS;

/**
 * Tells the gateways that sessions are revoked (a Redis key each, checked on every authenticated request).
 * Called inside the transaction that marks them revoked, before it commits: if Redis is away the request fails
 * with 503 and the transaction rolls back, so PostgreSQL never holds a revocation the gateways do not know.
 * The same transaction records `identity.sessions.revoked.v1` (ids only): notifications deletes the push
 * subscriptions the revoked sessions registered, so a logged-out browser stops hearing of the owner's items.
 */
@Injectable()
export class SessionRevocations {
  constructor(
    private readonly redis: RedisClient,
    private readonly outbox: OutboxWriter,
    @InjectConfig() private readonly config: IdentityConfig,
  ) {}

  async announce(tx: Transaction, userId: string, sessionIds: string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    await this.outbox.record(tx, 'identity.sessions.revoked.v1', { userId, sessionIds }, { aggregateId: userId, version: Date.now() });
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
