import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { parseTagCode, ResponseCode } from '@homing/contracts';
import { RedisClient } from '@homing/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import { countInWindow, retryAfterSeconds } from '../http/window-counter';

/**
 * Spam limits on a tag's thread, per hour (ARCHITECTURE §8, RELIABILITY A4): one client address may write so much to
 * one tag, and one tag may receive so much from everyone. A finder and an owner arranging a hand-over write a few
 * dozen messages at most.
 */
export const MESSAGE_LIMITS = { perAddressPerTag: 20, perTag: 200, windowMs: 60 * 60_000 } as const;

/** Milliseconds to wait when a write is past a limit, or 0 when it may go ahead. */
export function messageLimitWait(counts: { address: number; tag: number }, remainingMs: { address: number; tag: number }, limits = MESSAGE_LIMITS): number {
  if (counts.address > limits.perAddressPerTag) return Math.max(1000, remainingMs.address);
  if (counts.tag > limits.perTag) return Math.max(1000, remainingMs.tag);
  return 0;
}

/** Counts writes in Redis, shared by every gateway replica; each key expires with its window. */
@Injectable()
export class MessageLimits {
  private readonly logger = new Logger(MessageLimits.name);

  constructor(
    private readonly redis: RedisClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** Counts one write to the tag's thread from the address; past a limit, 429 with `Retry-After`. */
  async admit(address: string, input: string, reply: Pick<FastifyReply, 'header'>): Promise<void> {
    const code = parseTagCode(input);
    // Not a code at all: messaging answers 404, and no key is made of whatever was typed.
    if (!code) return;
    const tagKey = `${this.config.NATS_NAMESPACE}:messages:${code}`;
    const addressKey = `${tagKey}:${address}`;
    let waitMs: number;
    try {
      const [perAddress, perTag] = await countInWindow(this.redis.redis, [addressKey, tagKey], MESSAGE_LIMITS.windowMs);
      waitMs = messageLimitWait({ address: perAddress.count, tag: perTag.count }, { address: perAddress.remainingMs, tag: perTag.remainingMs });
    } catch (error) {
      // A finder's message is never refused because Redis is away: the limit guards against floods, not the thread.
      this.logger.warn(`message limits unavailable: ${(error as Error).message}`);
      return;
    }
    if (waitMs > 0) {
      void reply.header('retry-after', String(retryAfterSeconds(waitMs)));
      throw new ApiError(429, ResponseCode.RATE_LIMITED, 'Too many messages for this tag. Try again later.');
    }
  }
}
