import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ResponseCode } from '@homing/contracts';
import { clientNetworkOf, countInWindow, InjectConfig, RedisClient, retryAfterSeconds } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import { AddressHashes } from './address-hashes';

/**
 * How many scans are recorded per tag: a finder's page records one per visit, so a reloading finder stays far below
 * the first; the second keeps a flood of addresses from filling an owner's history and phone.
 */
export const SCAN_LIMITS = { perAddressPerTag: 10, perTag: 120, windowMs: 60 * 60_000 } as const;

/** Counts scans in Redis (every replica together) by the address's keyed digest, never the address. */
@Injectable()
export class ScanLimits {
  private readonly logger = new Logger(ScanLimits.name);

  constructor(
    private readonly redis: RedisClient,
    private readonly hashes: AddressHashes,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /** Counts one scan of the tag from the address's client (an IPv6 one by its /64); past a limit, 429 (`Retry-After`). */
  async admit(address: string, canonicalCode: string, reply: Pick<FastifyReply, 'header'>): Promise<void> {
    let waitMs = 0;
    try {
      const tagKey = `${this.config.NATS_NAMESPACE}:scans:${canonicalCode}`;
      const addressKey = `${tagKey}:${await this.hashes.digest(clientNetworkOf(address))}`;
      const [perAddress, perTag] = await countInWindow(this.redis.redis, [addressKey, tagKey], SCAN_LIMITS.windowMs);
      if (perAddress.count > SCAN_LIMITS.perAddressPerTag) waitMs = Math.max(1000, perAddress.remainingMs);
      else if (perTag.count > SCAN_LIMITS.perTag) waitMs = Math.max(1000, perTag.remainingMs);
    } catch (error) {
      // A scan is never refused because Redis is away: the limit guards against floods, not the history.
      this.logger.warn(`scan limits unavailable: ${(error as Error).message}`);
      return;
    }
    if (waitMs > 0) {
      void reply.header('retry-after', String(retryAfterSeconds(waitMs)));
      throw new ApiError(429, ResponseCode.RATE_LIMITED, 'Too many scans of this tag. Try again later.');
    }
  }
}
