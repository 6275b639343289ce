import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MESSAGE_MAX_LENGTH, parseRelayAddress, type RelayRecipient } from '@homing/contracts';
import { InjectConfig, RpcClient, RpcError } from '@homing/platform';
import { SenderAuthenticator } from '../authentication/sender-authenticator';
import { domainOf } from '../authentication/sender-policy';
import type { MailRelayConfig } from '../config/mail-relay.config';
import { automatedReason, mailLanguage, messageOf, type MailHeaders } from './inbound-mail';
import { RelayLimits } from './relay-limits';
import { RelayedMailsRepository } from './relayed-mails.repository';
import { SmtpReply } from './smtp-reply';

const NO_SUCH_USER = () => new SmtpReply(550, '5.1.1 No such user here');
const TRY_LATER = () => new SmtpReply(451, '4.3.0 Temporary failure, please try again later');
// The conversation was handed over, or its finder left: it takes no more messages, now or on any retry.
const CLOSED = () => new SmtpReply(550, '5.7.1 This conversation takes no more mail');
const INVALID_SENDER = () => new SmtpReply(550, '5.1.7 Invalid sender address');
const TOO_MANY_GUESSES = (waitMs: number) => new SmtpReply(450, `4.7.1 Too many unknown addresses from your host, try again in ${Math.ceil(waitMs / 60_000)} minutes`);
// The From of a mail to a tag becomes the finder's address, where the owner's replies go: only its domain's mail may.
const UNAUTHENTICATED = (domain: string) =>
  new SmtpReply(550, `5.7.26 This relay could not verify that this mail comes from ${printable(domain) || 'its sender'}; the finder can write through the page the tag's QR code opens`);
const SENDER_UNVERIFIABLE = () => new SmtpReply(451, '4.4.3 The sender could not be verified (DNS lookup failed), please try again later');
const TOO_MANY_MESSAGES = (waitMs: number) => new SmtpReply(450, `4.7.1 Too many messages for this tag, try again in ${Math.ceil(waitMs / 60_000)} minutes`);

/** A recipient accepted at `RCPT TO`: what it names, and the tag it is about. */
export interface RelayTarget {
  recipient: RelayRecipient;
  itemCode: string;
}

/** A received mail, as mailparser read it (its body is never kept: it becomes messages, or nothing). */
export interface ReceivedMail {
  /** The mail as it came, headers and body: the sender check reads it (DKIM signs these bytes). */
  raw: Buffer;
  headers: MailHeaders;
  messageId?: string;
  from?: string;
  subject?: string;
  text?: string;
  attachmentNames: string[];
}

const mails = new Counter({
  name: 'homing_relay_mails_total',
  help: 'Mails received by the relay, by outcome (relayed, partial, automated, unauthenticated, unverifiable, empty, limited, refused, failed)',
  labelNames: ['outcome'],
});
const recipients = new Counter({
  name: 'homing_relay_recipients_total',
  help: 'Recipients asked of the relay at RCPT TO, by outcome (accepted, unknown, closed, limited, failed)',
  labelNames: ['outcome'],
});

/**
 * Mail into conversations (ARCHITECTURE §12, mail relay): a recipient is checked with messaging at `RCPT TO`
 * (unknown, retired and erased addresses answer alike, and count as unknown codes), and a mail's new text becomes a
 * message of each recipient through messaging. Machines' mail (bounces, auto-replies) becomes nothing. Logs say what
 * happened by outcome and tag, never an address or a body.
 */
@Injectable()
export class MailRelayService {
  private readonly logger = new Logger(MailRelayService.name);

  constructor(
    private readonly rpc: RpcClient,
    private readonly limits: RelayLimits,
    private readonly relayedMails: RelayedMailsRepository,
    private readonly senders: SenderAuthenticator,
    @InjectConfig() private readonly config: MailRelayConfig,
  ) {}

  /** `RCPT TO`: whether the address takes mail now; throws the SMTP answer when not. */
  async acceptRecipient(address: string, clientAddress: string): Promise<RelayTarget> {
    const blockedMs = await this.limits.unknownCodesBlockedFor(clientAddress);
    if (blockedMs > 0) {
      recipients.inc({ outcome: 'limited' });
      throw TOO_MANY_GUESSES(blockedMs);
    }
    const recipient = parseRelayAddress(address, this.config.RELAY_DOMAIN);
    if (!recipient) {
      recipients.inc({ outcome: 'unknown' });
      // A tag address that cannot be a code is a miss like an unknown code; anything else is simply not ours.
      if (address.toLowerCase().startsWith('tag-')) await this.limits.recordUnknownCode(clientAddress);
      throw NO_SUCH_USER();
    }
    try {
      const { itemCode } = await this.rpc.request('messaging.rpc.relay-recipient', { recipient });
      recipients.inc({ outcome: 'accepted' });
      return { recipient, itemCode };
    } catch (error) {
      if (error instanceof RpcError && error.body.status === 404) {
        recipients.inc({ outcome: 'unknown' });
        if (recipient.kind === 'tag') await this.limits.recordUnknownCode(clientAddress);
        throw NO_SUCH_USER();
      }
      // Closed or left (409): final, so refused for good; a 451 had the sender retry for days and bounce vaguely.
      if (error instanceof RpcError && error.body.status < 500) {
        recipients.inc({ outcome: 'closed' });
        throw CLOSED();
      }
      recipients.inc({ outcome: 'failed' });
      this.logger.warn(`recipient check failed: ${(error as Error).message}`);
      throw TRY_LATER();
    }
  }

  /**
   * `DATA` ended: the mail's text as a message of every accepted recipient. Resolves when the mail is taken (relayed
   * to one recipient at least, or dropped as a machine's or empty); throws the SMTP answer when it is refused, 4xx for
   * the sender to retry the whole mail. A recipient that refuses the mail for good (gone or closed since RCPT TO) after
   * another took it is logged, not bounced: the sender would believe nothing was delivered. A retried mail is
   * recognised by its Message-ID, and adds nothing twice where it was posted. `clientAddress` is the sending host's
   * (the SMTP client's) address: it counts against the tag's limits besides the sender's address, which anyone can forge.
   */
  async deliver(mail: ReceivedMail, envelopeSender: string | null, targets: RelayTarget[], clientAddress: string): Promise<void> {
    const automated = automatedReason(mail.headers, envelopeSender);
    if (automated) {
      mails.inc({ outcome: 'automated' });
      this.logger.log(`mail dropped: ${automated}`);
      return;
    }
    // A From header without an address (`From: Sam`) is read as none: the envelope's sender then.
    const from = mail.from || envelopeSender || '';
    const { targets: allowed, refusal } = await this.authenticatedTargets(mail, from, envelopeSender, targets, clientAddress);
    const content = messageOf({ text: mail.text ?? '', subject: mail.subject ?? '', attachmentNames: mail.attachmentNames }, MESSAGE_MAX_LENGTH);
    if (!content) {
      mails.inc({ outcome: 'empty' });
      this.logger.log('mail dropped: no text');
      return;
    }
    const language = mailLanguage(mail.headers.get('content-language'), content);
    const mailId = createHash('sha256')
      .update(mail.messageId ?? `${from}\n${mail.subject ?? ''}\n${content}`)
      .digest('base64url');
    let relayed = 0;
    const refusals: SmtpReply[] = refusal ? [refusal] : [];
    for (const target of allowed) {
      const tag = `tag ${target.itemCode.slice(0, 4)}…`;
      const relayedMail = { recipient: target.recipient, mailId, from, content };
      // Posted on an earlier try whose 250 the sender never saw: nothing to write, nor to count against the limits.
      if (await this.relayedMails.wasRelayed(relayedMail)) {
        relayed += 1;
        this.logger.log(`mail already relayed to ${tag}: a retry`);
        continue;
      }
      const { waitMs, refund } = await this.limits.admitMessage(target.itemCode, from, clientAddress);
      if (waitMs > 0) {
        mails.inc({ outcome: 'limited' });
        throw TOO_MANY_MESSAGES(waitMs);
      }
      try {
        const message = await this.rpc.request('messaging.rpc.relay-message', { recipient: target.recipient, from, language, content, mailId });
        relayed += 1;
        await this.relayedMails.remember(relayedMail);
        this.logger.log(`mail relayed: message ${message.messageId} by the ${message.author} of ${tag}`);
      } catch (error) {
        if (error instanceof RpcError && error.body.status < 500) {
          // Gone since RCPT TO (erased, handed over, the finder left), or a sender address the thread cannot take:
          // nothing to retry, and no reason to refuse the others.
          refusals.push(error.body.status === 422 ? INVALID_SENDER() : error.body.status === 409 ? CLOSED() : NO_SUCH_USER());
          this.logger.warn(`mail not relayed to one of its recipients (${tag}): ${error.body.response_code}`);
          continue;
        }
        // The sender retries a 451 (the whole mail; where it was posted, the retry adds nothing): this try's count goes back.
        await refund();
        mails.inc({ outcome: 'failed' });
        this.logger.warn(`relay failed: ${(error as Error).message}`);
        throw TRY_LATER();
      }
    }
    if (relayed === 0 && refusals.length > 0) {
      mails.inc({ outcome: 'refused' });
      throw refusals[0];
    }
    mails.inc({ outcome: refusals.length > 0 ? 'partial' : 'relayed' });
  }

  /**
   * The recipients a mail may reach, by its sender (RELAY_SENDER_AUTHENTICATION `required`): a tag only when the
   * finder's address is its domain's (sender-policy.ts). Mail to reply addresses is not checked: its token (128 bits)
   * is the proof, and forwarding would break SPF. A sender that fails: the mail is refused (550) when it was for tags
   * alone; else it goes to its reply addresses, and the tags' part is refused as a recipient gone since RCPT TO is (the
   * mail is taken, the refusal logged). DNS that failed: 451 for the whole mail, which the sender retries. Decided before
   * any count or post, so a refused part costs the tag nothing.
   */
  private async authenticatedTargets(
    mail: ReceivedMail,
    from: string,
    envelopeSender: string | null,
    targets: RelayTarget[],
    clientAddress: string,
  ): Promise<{ targets: RelayTarget[]; refusal?: SmtpReply }> {
    if (this.config.RELAY_SENDER_AUTHENTICATION === 'off' || !targets.some((target) => target.recipient.kind === 'tag')) return { targets };
    const verdict = await this.senders.verify({ raw: mail.raw, envelopeSender, clientAddress, finderAddress: from });
    if (verdict === 'authenticated') return { targets };
    if (verdict === 'unverifiable') {
      mails.inc({ outcome: 'unverifiable' });
      this.logger.log('mail to a tag refused: sender unverifiable');
      throw SENDER_UNVERIFIABLE();
    }
    const replies = targets.filter((target) => target.recipient.kind !== 'tag');
    if (replies.length === 0) {
      mails.inc({ outcome: 'unauthenticated' });
      this.logger.log('mail to a tag refused: sender forged');
      throw UNAUTHENTICATED(domainOf(from));
    }
    this.logger.warn('mail not relayed to its tags: sender forged; its reply addresses take it');
    return { targets: replies, refusal: UNAUTHENTICATED(domainOf(from)) };
  }
}

/** A domain as an SMTP reply may quote it: letters, digits, dots and dashes only, or ''. */
function printable(domain: string): string {
  return /^[a-z0-9.-]{1,253}$/.test(domain) ? domain : '';
}
