import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { parseTagCode, ResponseCode } from '@homing/contracts';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError, toHttpError } from '../http/http-error';
import { countWithRouteLimit, routeLimitKey } from '../http/rate-limits';
import { clientNetworkOf, InjectConfig, RedisClient, MESSAGE_LIMITS, messageLimitKeys, messageLimitWait, refundInWindow, retryAfterSeconds } from '@homing/platform';

/** The routes that write to a tag's thread, each with its own default limit (`rateLimit: 'by-route'`). */
export type ThreadWriteRoute = 'post-message' | 'share-location';

/**
 * Counts writes in Redis (MESSAGE_LIMITS), shared by every gateway replica and by the mail relay, which counts the
 * same tag's key; each key expires with its window. The route's default limit (RATE_LIMITS.default) is counted in the
 * same round trip: the route skips the throttler guard, which would take a round trip of its own.
 */
@Injectable()
export class MessageLimits {
  private readonly logger = new Logger(MessageLimits.name);

  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /**
   * Counts one write to the tag's thread from the address's client (an IPv6 one by its /64), and one request of the
   * route; past a limit, 429 with `Retry-After`. Resolves with a refund for a write that then fails on the product's
   * side (503, 504): a finder retrying through an outage, as the web app does with the same Idempotency-Key, must not
   * use up the tag's hour. As with the throttler guard, a count Redis cannot answer is an error (503 when Redis is
   * away): the route's default limit is counted in it.
   */
  async admit(address: string, input: string, route: ThreadWriteRoute, reply: Pick<FastifyReply, 'header'>): Promise<() => Promise<void>> {
    const network = clientNetworkOf(address);
    const routeKey = routeLimitKey(this.config.NATS_NAMESPACE, route, network);
    const code = parseTagCode(input);
    // Not a code at all: messaging answers 404, and no key is made of whatever was typed; the request still counts.
    if (!code) {
      await countWithRouteLimit(this.redis, routeKey, [], reply);
      return NO_REFUND;
    }
    const { tagKey, writerKey: addressKey } = messageLimitKeys(this.config.NATS_NAMESPACE, code, network);
    const [perAddress, perTag] = await countWithRouteLimit(this.redis, routeKey, [addressKey, tagKey].map((key) => ({ key, windowMs: MESSAGE_LIMITS.windowMs })), reply);
    const waitMs = messageLimitWait({ address: perAddress.count, tag: perTag.count }, { address: perAddress.remainingMs, tag: perTag.remainingMs });
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
