import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { parseTagCode, ResponseCode } from '@homing/contracts';
import { InjectConfig, RedisClient } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError, toHttpError } from '../http/http-error';
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
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /**
   * Counts one write to the tag's thread from the address; past a limit, 429 with `Retry-After`. Resolves with a
   * refund for a write that then fails on the product's side (503, 504): a finder retrying through an outage, as the
   * web app does with the same Idempotency-Key, must not use up the tag's hour.
   */
  async admit(address: string, input: string, reply: Pick<FastifyReply, 'header'>): Promise<() => Promise<void>> {
    const code = parseTagCode(input);
    // Not a code at all: messaging answers 404, and no key is made of whatever was typed.
    if (!code) return NO_REFUND;
    const tagKey = `${this.config.NATS_NAMESPACE}:messages:${code}`;
    const addressKey = `${tagKey}:${address}`;
    let waitMs: number;
    try {
      const [perAddress, perTag] = await countInWindow(this.redis.redis, [addressKey, tagKey], MESSAGE_LIMITS.windowMs);
      waitMs = messageLimitWait({ address: perAddress.count, tag: perTag.count }, { address: perAddress.remainingMs, tag: perTag.remainingMs });
    } catch (error) {
      // A finder's message is never refused because Redis is away: the limit guards against floods, not the thread.
      this.logger.warn(`message limits unavailable: ${(error as Error).message}`);
      return NO_REFUND;
    }
    if (waitMs > 0) {
      void reply.header('retry-after', String(retryAfterSeconds(waitMs)));
      throw new ApiError(429, ResponseCode.RATE_LIMITED, 'Too many messages for this tag. Try again later.');
    }
    return async () => {
      // DECR leaves a key's expiry alone; a window that ended meanwhile has nothing left to refund.
      await this.redis.redis
        .multi()
        .eval(REFUND_SCRIPT, 1, addressKey)
        .eval(REFUND_SCRIPT, 1, tagKey)
        .exec()
        .catch((error: Error) => this.logger.warn(`message limits: refund failed: ${error.message}`));
    };
  }
}

const NO_REFUND = async (): Promise<void> => undefined;

// Decrements a window's count only while the window (the key) exists, never below zero.
const REFUND_SCRIPT = "if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('GET', KEYS[1])) > 0 then return redis.call('DECR', KEYS[1]) end return 0";

/** Whether a write that failed with this error failed on the product's side (so its count is given back). */
export function failedOnOurSide(error: unknown): boolean {
  const answer = toHttpError(error);
  return answer === null || answer.status >= 500;
}
