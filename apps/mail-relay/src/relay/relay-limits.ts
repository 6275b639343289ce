import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { clientNetworkOf, countInWindow, InjectConfig, MESSAGE_LIMITS, messageLimitKeys, messageLimitWait, RedisClient, refundInWindow, UNKNOWN_CODE_LIMIT, unknownCodeMissesKey, type WindowCount } from '@homing/platform';
import type { MailRelayConfig } from '../config/mail-relay.config';

/**
 * The limits of the HTTP routes, applied to mail and counted with them in Redis: unknown tag addresses count as
 * misses of the unknown-code limit of the sending host's address (so guessing codes by mail gains nothing over the
 * web), and messages count against the tag's hourly limit and two writers' limits per tag: the sender's address (the
 * From, which anyone can forge) and the sending host (the SMTP client's address, an IPv6 one by its /64), each held
 * to the web's per-address limit. A mail is never refused because Redis is away: these guard against floods, not
 * the thread (the web's routes, which count their rate limit in the same call, answer 503 then).
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
   * Counts one message from the sender, sent by the host `clientAddress`, to the tag's thread: the milliseconds to wait
   * when past a limit (the message is then not written), else 0, and a refund for a message that then fails on the
   * product's side (the sender retries a mail answered 451, as the gateway's finder retries a 503, and must not use up
   * the tag's hour doing so). The From alone was no limit: a host writing each mail under a new one filled the tag's
   * hour by itself. The sender's address and the host's are kept in the keys only as digests.
   */
  async admitMessage(canonicalCode: string, sender: string, clientAddress: string): Promise<{ waitMs: number; refund: () => Promise<void> }> {
    const { tagKey, writerKey: senderKey } = messageLimitKeys(this.config.NATS_NAMESPACE, canonicalCode, `mail:${digest(sender.toLowerCase())}`);
    const { writerKey: hostKey } = messageLimitKeys(this.config.NATS_NAMESPACE, canonicalCode, `host:${digest(clientNetworkOf(clientAddress))}`);
    const keys = [senderKey, hostKey, tagKey];
    try {
      const [perSender, perHost, perTag] = await countInWindow(this.redis.redis, keys, MESSAGE_LIMITS.windowMs);
      const waitMs = relayMessageWait({ sender: perSender, host: perHost, tag: perTag });
      return { waitMs, refund: () => refundInWindow(this.redis.redis, keys).catch((error: Error) => this.logger.warn(`message limits: refund failed: ${error.message}`)) };
    } catch (error) {
      this.logger.warn(`message limits unavailable: ${(error as Error).message}`);
      return { waitMs: 0, refund: NO_REFUND };
    }
  }
}

/**
 * Milliseconds to wait for a mail, or 0 when it may be written: the web's rule (MESSAGE_LIMITS) for each of its two
 * writers, the sender and the host, each past its per-address limit or the tag past its own; the longest wait.
 */
export function relayMessageWait(counts: Record<'sender' | 'host' | 'tag', WindowCount>, limits = MESSAGE_LIMITS): number {
  const remainingMs = (writer: WindowCount) => ({ address: writer.remainingMs, tag: counts.tag.remainingMs });
  return Math.max(
    messageLimitWait({ address: counts.sender.count, tag: counts.tag.count }, remainingMs(counts.sender), limits),
    messageLimitWait({ address: counts.host.count, tag: counts.tag.count }, remainingMs(counts.host), limits),
  );
}

/** A key's part for an address: a digest, never the address in clear. */
function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 22);
}

const NO_REFUND = async (): Promise<void> => undefined;
