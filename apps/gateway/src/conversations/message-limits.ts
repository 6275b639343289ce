import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { parseTagCode, ResponseCode } from '@homing/contracts';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError, toHttpError } from '../http/http-error';
import { clientNetworkOf, InjectConfig, RedisClient, countInWindow, MESSAGE_LIMITS, messageLimitKeys, messageLimitWait, refundInWindow, retryAfterSeconds } from '@homing/platform';

/**
 * Counts writes in Redis (MESSAGE_LIMITS), shared by every gateway replica and by the mail relay, which counts the
 * same tag's key; each key expires with its window.
 */
@Injectable()
export class MessageLimits {
  private readonly logger = new Logger(MessageLimits.name);

  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /**
   * Counts one write to the tag's thread from the address's client (an IPv6 one by its /64); past a limit, 429 with
   * `Retry-After`. Resolves with a refund for a write that then fails on the product's side (503, 504): a finder
   * retrying through an outage, as the web app does with the same Idempotency-Key, must not use up the tag's hour.
   */
  async admit(address: string, input: string, reply: Pick<FastifyReply, 'header'>): Promise<() => Promise<void>> {
    const code = parseTagCode(input);
    // Not a code at all: messaging answers 404, and no key is made of whatever was typed.
    if (!code) return NO_REFUND;
    const { tagKey, writerKey: addressKey } = messageLimitKeys(this.config.NATS_NAMESPACE, code, clientNetworkOf(address));
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
    return () => refundInWindow(this.redis.redis, [addressKey, tagKey]).catch((error: Error) => this.logger.warn(`message limits: refund failed: ${error.message}`));
  }
}

const NO_REFUND = async (): Promise<void> => undefined;

/** Whether a write that failed with this error failed on the product's side (so its count is given back). */
export function failedOnOurSide(error: unknown): boolean {
  const answer = toHttpError(error);
  return answer === null || answer.status >= 500;
}
