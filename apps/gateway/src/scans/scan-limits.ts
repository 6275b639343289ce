import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ResponseCode } from '@homing/contracts';
import { clientNetworkOf, InjectConfig, RedisClient, retryAfterSeconds } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import { countWithRouteLimit, routeLimitKey } from '../http/rate-limits';
import { AddressHashes } from './address-hashes';

/**
 * How many scans are recorded per tag: a finder's page records one per visit, so a reloading finder stays far below
 * the first; the second keeps a flood of addresses from filling an owner's history and phone.
 */
export const SCAN_LIMITS = { perAddressPerTag: 10, perTag: 120, windowMs: 60 * 60_000 } as const;

/**
 * Counts scans in Redis (every replica together) by the address's keyed digest, never the address, with the route's
 * default limit (RATE_LIMITS.default) in the same round trip: the route skips the throttler guard, which would take a
 * round trip of its own.
 */
@Injectable()
export class ScanLimits {
  constructor(
    private readonly redis: RedisClient,
    private readonly hashes: AddressHashes,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /**
   * Counts one scan of the tag from the address's client (an IPv6 one by its /64), and one request of the route; past a
   * limit, 429 (`Retry-After`). As with the throttler guard, a count Redis cannot answer is an error (503 when Redis is
   * away): the route's default limit is counted in it.
   */
  async admit(address: string, canonicalCode: string, reply: Pick<FastifyReply, 'header'>): Promise<void> {
    const client = await this.hashes.digest(clientNetworkOf(address));
    const tagKey = `${this.config.NATS_NAMESPACE}:scans:${canonicalCode}`;
    const addressKey = `${tagKey}:${client}`;
    const routeKey = routeLimitKey(this.config.NATS_NAMESPACE, 'record-scan', client);
    const [perAddress, perTag] = await countWithRouteLimit(this.redis, routeKey, [addressKey, tagKey].map((key) => ({ key, windowMs: SCAN_LIMITS.windowMs })), reply);
    const waitMs =
      perAddress.count > SCAN_LIMITS.perAddressPerTag ? Math.max(1000, perAddress.remainingMs) : perTag.count > SCAN_LIMITS.perTag ? Math.max(1000, perTag.remainingMs) : 0;
    if (waitMs > 0) {
      void reply.header('retry-after', String(retryAfterSeconds(waitMs)));
      throw new ApiError(429, ResponseCode.RATE_LIMITED, 'Too many scans of this tag. Try again later.');
    }
  }
}
