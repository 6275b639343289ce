import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { RelayRecipient } from '@homing/contracts';
import { InjectConfig, RedisClient } from '@homing/platform';
import type { MailRelayConfig } from '../config/mail-relay.config';

/**
 * How long the relay remembers a mail it posted: longer than a sending server retries a mail whose 250 it never saw
 * (the connection dropped after DATA): Postfix and Sendmail give up after 5 days, Exim after 4. Messaging's idempotency
 * keys, which also stop a retry from posting twice, last 24 hours only (IDEMPOTENCY_KEY_TTL_HOURS in libs/platform).
 */
export const RELAYED_MAIL_WINDOW_MS = 6 * 24 * 60 * 60 * 1000;

/** A mail as posted to one recipient: what messaging's idempotency key and request hash are made of. */
export interface RelayedMail {
  recipient: RelayRecipient;
  mailId: string;
  from: string;
  content: string;
}

/**
 * The mails the relay posted, per recipient, for RELAYED_MAIL_WINDOW_MS, in Redis under a digest (no address, token
 * or text in clear), so that a sender's retry days later is taken (250) without posting it again. The same mail id with
 * other text is another mail, as messaging's request hash has it. Redis away: nothing is remembered or known, and
 * messaging's own key still stops a retry within 24 hours.
 */
@Injectable()
export class RelayedMailsRepository {
  private readonly logger = new Logger(RelayedMailsRepository.name);

  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: MailRelayConfig,
  ) {}

  async wasRelayed(mail: RelayedMail): Promise<boolean> {
    try {
      return (await this.redis.redis.exists(this.keyOf(mail))) === 1;
    } catch (error) {
      this.logger.warn(`relayed mails unavailable: ${(error as Error).message}`);
      return false;
    }
  }

  async remember(mail: RelayedMail): Promise<void> {
    try {
      await this.redis.redis.set(this.keyOf(mail), '1', 'PX', RELAYED_MAIL_WINDOW_MS);
    } catch (error) {
      this.logger.warn(`relayed mails unavailable: ${(error as Error).message}`);
    }
  }

  private keyOf(mail: RelayedMail): string {
    const recipient = mail.recipient.kind === 'tag' ? `tag:${mail.recipient.code}` : `reply:${mail.recipient.token}`;
    const digest = createHash('sha256')
      .update(JSON.stringify([recipient, mail.mailId, mail.from.toLowerCase(), mail.content]))
      .digest('base64url');
    return `${this.config.NATS_NAMESPACE}:mail-relay:relayed:${digest}`;
  }
}
