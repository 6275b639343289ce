import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { countInWindow, InjectConfig, MESSAGE_LIMITS, messageLimitKeys, messageLimitWait, RedisClient, refundInWindow, UNKNOWN_CODE_LIMIT, unknownCodeMissesKey } from '@homing/platform';
import type { MailRelayConfig } from '../config/mail-relay.config';

/**
 * The limits of the HTTP routes, applied to mail and counted with them in Redis: unknown tag addresses count as
 * misses of the unknown-code limit of the sending host's address (so guessing codes by mail gains nothing over the
 * web), and messages count against the tag's hourly limit and the sender's limit per tag. Like the gateway, a mail
 * is never refused because Redis is away: these guard against floods, not the thread.
 */
@Injectable()
export class RelayLimits {
  private readonly logger = new Logger(RelayLimits.name);

  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: MailRelayConfig,
  ) {}

  /** Milliseconds the sending host stays refused for guessing, or 0. Read only: reading counts nothing. */
  async unknownCodesBlockedFor(clientAddress: string): Promise<number> {
    try {
      const key = unknownCodeMissesKey(this.config.NATS_NAMESPACE, clientAddress);
      const [misses, remainingMs] = await this.redis.redis.multi().get(key).pttl(key).exec().then((replies) => (replies ?? []).map((reply) => Number(reply[1])));
      return misses >= UNKNOWN_CODE_LIMIT.misses && remainingMs > 0 ? remainingMs : 0;
    } catch (error) {
      this.logger.warn(`unknown-code limit unavailable: ${(error as Error).message}`);
      return 0;
    }
  }

  async recordUnknownCode(clientAddress: string): Promise<void> {
    try {
      await countInWindow(this.redis.redis, [unknownCodeMissesKey(this.config.NATS_NAMESPACE, clientAddress)], UNKNOWN_CODE_LIMIT.windowMs);
    } catch (error) {
      this.logger.warn(`unknown-code limit unavailable: ${(error as Error).message}`);
    }
  }

  /**
   * Counts one message from the sender to the tag's thread: the milliseconds to wait when past a limit (the message is
   * then not written), else 0, and a refund for a message that then fails on the product's side (the sender retries a
   * mail answered 451, as the gateway's finder retries a 503, and must not use up the tag's hour doing so). The
   * sender's address is kept in the key only as a digest.
   */
  async admitMessage(canonicalCode: string, sender: string): Promise<{ waitMs: number; refund: () => Promise<void> }> {
    const writer = `mail:${createHash('sha256').update(sender.toLowerCase()).digest('base64url').slice(0, 22)}`;
    const { tagKey, writerKey } = messageLimitKeys(this.config.NATS_NAMESPACE, canonicalCode, writer);
    try {
      const [perWriter, perTag] = await countInWindow(this.redis.redis, [writerKey, tagKey], MESSAGE_LIMITS.windowMs);
      const waitMs = messageLimitWait({ address: perWriter.count, tag: perTag.count }, { address: perWriter.remainingMs, tag: perTag.remainingMs });
      return { waitMs, refund: () => refundInWindow(this.redis.redis, [writerKey, tagKey]).catch((error: Error) => this.logger.warn(`message limits: refund failed: ${error.message}`)) };
    } catch (error) {
      this.logger.warn(`message limits unavailable: ${(error as Error).message}`);
      return { waitMs: 0, refund: NO_REFUND };
    }
  }
}

const NO_REFUND = async (): Promise<void> => undefined;
