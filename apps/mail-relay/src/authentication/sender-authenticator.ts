import { Resolver } from 'node:dns/promises';
import { Injectable, Logger } from '@nestjs/common';
import { authenticate } from 'mailauth';
import { InjectConfig } from '@homing/platform';
import type { MailRelayConfig } from '../config/mail-relay.config';
import { senderVerdict, type SenderVerdict } from './sender-policy';

// Each DNS query: 2 s a try, 2 tries. A check makes a handful of lookups one after the other (the DKIM key, SPF and
// what it includes, DMARC); the sending server waits for the end of DATA (RFC 5321 gives it 10 minutes).
const DNS_TIMEOUT_MS = 2000;
const DNS_TRIES = 2;
// However many lookups SPF chains: past this the check is given up as a DNS failure (451), and the sender retries.
const CHECK_DEADLINE_MS = 30_000;

/** A mail as the SMTP session received it: its bytes (DKIM signs those), the envelope sender and the client's address. */
export interface MailToAuthenticate {
  raw: Buffer;
  envelopeSender: string | null;
  clientAddress: string;
  /** The address the relay takes as the finder's (the From header's, else the envelope sender's). */
  finderAddress: string;
}

/**
 * Checks a mail's sender with mailauth (SPF of the envelope sender from the client's address, DKIM signatures, the
 * From domain's DMARC record) and answers the relay's verdict (sender-policy.ts). Its DNS lookups go to
 * RELAY_DNS_SERVERS when set, else to the system's resolver. ARC and BIMI are not checked: no verdict depends on them.
 */
@Injectable()
export class SenderAuthenticator {
  private readonly logger = new Logger(SenderAuthenticator.name);
  private readonly resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });

  constructor(@InjectConfig() private readonly config: MailRelayConfig) {
    if (config.RELAY_DNS_SERVERS) this.resolver.setServers(config.RELAY_DNS_SERVERS);
  }

  async verify(mail: MailToAuthenticate): Promise<SenderVerdict> {
    let deadline: NodeJS.Timeout | undefined;
    const givenUp = new Promise<'unverifiable'>((resolve) => (deadline = setTimeout(() => resolve('unverifiable'), CHECK_DEADLINE_MS)));
    const checked = authenticate(mail.raw, {
      ip: mail.clientAddress,
      // No HELO: DMARC aligns the envelope sender's SPF only, and null senders (bounces) are dropped before the check.
      ...(mail.envelopeSender ? { sender: mail.envelopeSender } : {}),
      mta: this.config.RELAY_DOMAIN,
      resolver: (name, type) => this.resolver.resolve(name, type),
      disableArc: true,
      disableBimi: true,
    }).then(
      (result) => senderVerdict(result, mail.finderAddress),
      (error: Error) => {
        // mailauth turns DNS errors into results: what it throws is its own failure. Its message may quote the mail.
        this.logger.warn(`sender check failed: ${(error as NodeJS.ErrnoException).code ?? error.name}`);
        return 'unverifiable' as const;
      },
    );
    try {
      return await Promise.race([checked, givenUp]);
    } finally {
      clearTimeout(deadline);
    }
  }
}
