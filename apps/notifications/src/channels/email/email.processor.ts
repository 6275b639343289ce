import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { relayReplyAddress, type UserLanguage } from '@homing/contracts';
import { InjectConfig, RpcClient, RpcError } from '@homing/platform';
import type { NotificationsConfig } from '../../config/notifications.config';
import { emailJobOf, isFinishedJobData, recipientOf, type EmailJob, type StoredEmailJobData } from '../../jobs/email-jobs';
import { isLastRun, QueueWorker } from '../../jobs/queue-worker';
import { QUEUES } from '../../persisted-names';
import { ItemRecipientsService, type EmailStanding } from '../../item-people/item-recipients.service';
import { DeliveriesRepository, HELD_ELSEWHERE, runsOf, type DeliveryAttempt } from '../deliveries.repository';
import { DeliveryReceipts, type MessageReceipt } from '../delivery-receipts';
import { scanOfAlert, type ScanOfAlert } from '../scan-of-alert';
import { EmailRenderer } from './email-renderer';
import { SmtpRefusedError, SmtpRepository } from './smtp.repository';

/** Who a mail goes to, as identity, messaging or the job itself says. */
interface Recipient {
  email: string;
  language: UserLanguage;
  hasPassword?: boolean;
}

/** What ties a finder's mail to their conversation, minted by messaging with their address (one round trip). */
interface FinderLinks {
  resumeToken?: string;
  replyToken?: string;
}

/** Who a mail goes to (null: nobody to write to), and for a finder's mail its links. */
interface Addressee {
  recipient: Recipient | null;
  finderLinks?: FinderLinks;
}

/** What an e-mail about messages tells of (`receiptOf`), and the owner's reply token minted with it. */
interface ReceiptAnswer {
  receipt: MessageReceipt | 'read' | null;
  ownerReplyToken?: string | null;
}

/**
 * The worker of the `email` queue: looks the recipient up when the job runs (address and language are never carried
 * in the job, but for the farewell to an erased account, which has nobody left to look up, and an invitation's
 * address, which may be nobody's account yet), renders the mail in their
 * language, claims the delivery row, hands the mail to SMTP and records it sent. A job whose delivery row says `sent`
 * sends nothing again; one whose row another run of it holds comes back when that claim ends.
 * Logs name job ids and outcomes only: never an address, code, token or link.
 */
@Injectable()
export class EmailProcessor extends QueueWorker<StoredEmailJobData> {
  constructor(
    @InjectConfig() private readonly config: NotificationsConfig,
    private readonly rpc: RpcClient,
    private readonly renderer: EmailRenderer,
    private readonly smtp: SmtpRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly receipts: DeliveryReceipts,
    private readonly itemRecipients: ItemRecipientsService,
  ) {
    super(QUEUES.email, config);
  }

  async process(job: Job<StoredEmailJobData>, token?: string): Promise<void> {
    const jobId = job.id ?? '';
    // Off when the job's row is another run's: that run still needs the job's data.
    let mayScrub = true;
    try {
      if (isFinishedJobData(job.data)) return await this.finishedBefore(job);
      const mail = emailJobOf(job);
      const attempt: DeliveryAttempt = { jobId, channel: 'email', kind: mail.kind, attempts: runsOf(job), claimToken: randomUUID() };
      // This run's claim on the delivery row first, then who the mail goes to (an RPC). In that order, because a row
      // claimed after an erasure deleted the recipient's rows is always followed by a lookup that finds them gone (the
      // erasure's event leaves identity after its commit), and that run forgets its row: asked side by side, a lookup
      // answered just before the erasure could meet a claim made just after it, leaving the erased id in a new row.
      // What mints a token (the unread check, the conversation's links) comes after the claim and the standing, so a
      // mail whose row was sent or held elsewhere, or whose person is no longer told, mints none. Whether the person is
      // still told (a read of this service's own tables) is asked alongside the claim: it needs nothing of the claim,
      // and each is a round trip before the mail goes (B3). Its answer, or failure, is taken below, once the claim is held.
      const claimed = this.deliveries.claim(attempt, this.config.DELIVERY_CLAIM_SECONDS);
      const standingAsked = this.standingOf(mail);
      standingAsked.catch(() => undefined);
      const claim = await claimed;
      if (claim.outcome === 'sent-before') {
        this.logger.log(`${jobId} (${job.name}) was sent before; not sending again`);
        await this.scrub(job);
        return;
      }
      if (claim.outcome === 'held-elsewhere') {
        // Another run holds it (a worker that lost its lock may still be sending): come back once that claim ends.
        mayScrub = false;
        return await this.comeBackAt(job, token, DeliveriesRepository.retryAfter(claim), HELD_ELSEWHERE);
      }
      let addressee: Addressee = { recipient: null };
      let standing: EmailStanding;
      // The unread check, asked alongside the address once the person is told (B3: one round trip less before an
      // owner's mail goes). Its answer, or failure, is taken in `deliver`, which ends the claim if it failed.
      let receiptAsked: Promise<ReceiptAnswer> = Promise.resolve({ receipt: null });
      try {
        // Asked before the address, so a person no longer told costs no lookup.
        standing = await standingAsked;
        if (standing === 'told') {
          receiptAsked = this.receiptOf(mail);
          receiptAsked.catch(() => undefined);
          addressee = await this.addresseeOf(mail);
        }
      } catch (error) {
        // Nobody to write to, now or later (the user is gone): no row is left, as no mail is sent.
        if (error instanceof UnrecoverableError) await this.deliveries.forget(attempt);
        else await this.deliveries.release(attempt);
        throw error;
      }
      if (standing === 'not-of-item') {
        // Removed from the item, or it passed on or was deleted, while the e-mail waited: they are told nothing of it.
        await this.deliveries.forget(attempt);
        this.logger.log(`${jobId} (${job.name}) is for someone no longer of the item; nothing sent`);
        await this.scrub(job);
        return;
      }
      if (standing === 'email-off') {
        await this.deliveries.markSkipped(attempt, 'e-mail turned off for the item');
        this.logger.log(`${jobId} (${job.name}) skipped: e-mail is off for the item`);
        await this.scrub(job);
        return;
      }
      if (!addressee.recipient) {
        // A finder who left no address: replies reach them by push or on the found page only.
        await this.deliveries.forget(attempt);
        this.logger.log(`${jobId} (${job.name}) has no address to write to; nothing sent`);
        await this.scrub(job);
        return;
      }
      await this.deliver(job, mail, attempt, addressee.recipient, receiptAsked, addressee.finderLinks);
      await this.scrub(job);
    } catch (error) {
      const final = error instanceof UnrecoverableError || (!(error instanceof DelayedError) && isLastRun(job));
      if (final && mayScrub) await this.scrub(job);
      throw error;
    }
  }

  /**
   * A job whose data an earlier run scrubbed: that run finished it (sent it, or failed it for good) after losing its
   * lock, and this run was queued meanwhile. Done if it was sent; failed for good otherwise, as the earlier run found.
   */
  private async finishedBefore(job: Job<StoredEmailJobData>): Promise<void> {
    if (!(await this.deliveries.wasSent(job.id ?? ''))) throw new UnrecoverableError('its data was scrubbed by an earlier run that failed for good');
    this.logger.log(`${job.id} (${job.name}) was sent by an earlier run; nothing left to send`);
  }

  /**
   * The claimed run's work: skipped (read meanwhile, or the scan is gone) or sent, and recorded so. A run that fails
   * before SMTP has the mail ends its claim, so the retry need not wait for it to lapse; one that fails after (the
   * `sent` row could not be written) keeps it, the retry's only guard until it lapses.
   */
  private async deliver(
    job: Job<StoredEmailJobData>,
    mail: EmailJob,
    attempt: DeliveryAttempt,
    recipient: Recipient,
    receiptAsked: Promise<ReceiptAnswer>,
    finderLinks: FinderLinks | undefined,
  ): Promise<void> {
    let handedOver = false;
    // A refusal's outcome, once recorded, has ended this run's claim (RECORD_OUTCOME): nothing left to release.
    let outcomeRecorded = false;
    try {
      const { receipt, ownerReplyToken } = await receiptAsked;
      const scan = await this.scanOf(mail);
      if (receipt === 'read') {
        // A delayed owner's e-mail whose messages the owner read meanwhile: nothing to tell.
        await this.deliveries.markSkipped(attempt, 'read before the e-mail was due');
        this.logger.log(`${attempt.jobId} (${job.name}) skipped: the messages were read`);
      } else if (scan === null) {
        // A scan alert whose scan or item was deleted meanwhile: nothing left to tell, now or later.
        await this.deliveries.markSkipped(attempt, 'the scan or its item is gone');
        this.logger.log(`${attempt.jobId} (${job.name}) skipped: the scan or its item is gone`);
      } else {
        const { resumeToken, replyTo } = await this.conversationLinksOf(mail, ownerReplyToken, finderLinks);
        try {
          await this.smtp.send(recipient.email, this.renderer.render(mail, recipient.language, { ...recipient, resumeToken, scan }), attempt.jobId, replyTo);
        } catch (error) {
          if (!(error instanceof SmtpRefusedError)) throw error;
          // A temporary refusal on the last run is the mail's end too: `sending` would be left for good.
          await this.deliveries.markFailed(attempt, error.message, error.permanent || isLastRun(job));
          outcomeRecorded = true;
          throw error.permanent ? new UnrecoverableError(error.message) : error;
        }
        handedOver = true;
        await this.receipts.sent(attempt, receipt);
        this.logger.log(`${attempt.jobId} (${job.name}) sent in ${recipient.language} on attempt ${attempt.attempts}`);
      }
    } catch (error) {
      if (!handedOver && !outcomeRecorded) await this.deliveries.release(attempt);
      throw error;
    }
  }

  /**
   * What an e-mail about messages tells of: for the owner's mail, the newest finder's message still unread since the
   * one that opened the window ('read' when there is none: send nothing), asked of messaging with the mail's reply
   * token in the same round trip; for a reply to the finder, that reply.
   *
   * Asked alongside the owner's address: an owner who is gone (the lookup's 404) or a lookup that failed leaves a reply
   * token minted for a mail never sent. Only its hash is kept, nobody holds the token, and it goes with the
   * conversation (an erased co-owner's with their erasure, whose second pass takes one minted meanwhile).
   */
  private async receiptOf(mail: EmailJob): Promise<ReceiptAnswer> {
    if (mail.kind === 'new-message' && mail.data.conversationId && mail.data.messageId !== undefined) {
      const { conversationId, messageId, tagCode, userId } = mail.data;
      const unread = await this.rpc.request('messaging.rpc.unread-since', { conversationId, messageId, replyAddressFor: userId });
      if (unread.latestUnreadMessageId === null) return { receipt: 'read' };
      return { receipt: { itemCode: tagCode, conversationId, messageId: unread.latestUnreadMessageId }, ownerReplyToken: unread.replyToken };
    }
    if (mail.kind === 'owner-reply' && mail.data.messageId !== undefined) {
      return { receipt: { itemCode: mail.data.tagCode, conversationId: mail.data.conversationId, messageId: mail.data.messageId } };
    }
    return { receipt: null };
  }

  /** A scan alert's scan, asked of items as the mail is made (null: gone); undefined for every other mail. */
  private async scanOf(mail: EmailJob): Promise<ScanOfAlert | null | undefined> {
    return mail.kind === 'scan-alert' ? scanOfAlert(this.rpc, mail.data.scanId) : undefined;
  }

  /**
   * For an e-mail about an item's news (a finder's message, a scan), whether its person is still told of it by e-mail:
   * the job was made when the event came, and a delayed one waits up to OWNER_EMAIL_DELAY_MINUTES, in which they may
   * have been removed from the item or turned its e-mail off. Every other mail is `told`.
   */
  private standingOf(mail: EmailJob): Promise<EmailStanding> {
    if (mail.kind === 'new-message' || mail.kind === 'scan-alert') return this.itemRecipients.emailStanding(mail.data.tagCode, mail.data.userId);
    return Promise.resolve('told');
  }

  /**
   * A user's address, language and whether they have a password from identity; a finder's address and language from
   * messaging (null when they left no address), with their mail's links minted in the same round trip (messaging mints
   * none for a finder without an address); the farewell's from the job itself (identity erased the user).
   */
  private async addresseeOf(mail: EmailJob): Promise<Addressee> {
    if (mail.kind === 'account-deleted') return { recipient: { email: mail.data.email, language: mail.data.language } };
    if (mail.kind === 'invitation') return { recipient: { email: mail.data.email, language: await this.languageOfInvitation(mail.data.email, mail.data.inviterUserId) } };
    const recipient = recipientOf(mail.data);
    if ('farewell' in recipient || 'invitationId' in recipient) return { recipient: null };
    try {
      if ('userId' in recipient) return { recipient: await this.rpc.request('identity.rpc.get-user', { userId: recipient.userId }) };
      const contact = await this.rpc.request('messaging.rpc.get-finder-contact', { conversationId: recipient.conversationId, resumeLink: true, replyAddress: true });
      if (!contact.email) return { recipient: null };
      return { recipient: { email: contact.email, language: contact.language }, finderLinks: { resumeToken: contact.resumeToken, replyToken: contact.replyToken } };
    } catch (error) {
      // The user is gone: nobody to write to, now or later.
      if (error instanceof RpcError && error.body.status === 404) throw new UnrecoverableError('recipient not found');
      throw error;
    }
  }

  /**
   * An invitation is worded in the invitee's language when the address is an account's, else in the inviter's (who
   * chose to write to them); English when the inviter is gone meanwhile (the link itself says whether it still holds).
   */
  private async languageOfInvitation(email: string, inviterUserId: string): Promise<UserLanguage> {
    const { language } = await this.rpc.request('identity.rpc.language-of-email', { email });
    if (language) return language;
    try {
      return (await this.rpc.request('identity.rpc.get-user', { userId: inviterUserId })).language;
    } catch (error) {
      if (error instanceof RpcError && error.body.status === 404) return 'en';
      throw error;
    }
  }

  /**
   * What ties a mail to its conversation, minted by messaging as the mail is about to be sent, so it is in no job or
   * event and a job found sent or read already mints none it would never mail: a finder's mail links to their
   * conversation with a new resume token; every mail about a conversation, to the finder or the owner, gets a
   * `Reply-To` of a new reply address at the relay (`c-{token}@RELAY_DOMAIN`), so a reply becomes their message.
   * A finder's were minted with their address (`addresseeOf`), an owner's with the unread check (`receiptOf`).
   */
  private async conversationLinksOf(
    mail: EmailJob,
    ownerReplyToken: string | null | undefined,
    finderLinks: FinderLinks | undefined,
  ): Promise<{ resumeToken?: string; replyTo?: string }> {
    if (finderLinks) return { resumeToken: finderLinks.resumeToken, replyTo: this.replyAddress(finderLinks.replyToken) };
    if (mail.kind === 'new-message' && mail.data.conversationId) {
      // Answered with the unread check (a messaging that does not know `replyAddressFor` yet answers none: ask).
      const token = ownerReplyToken !== undefined ? ownerReplyToken : (await this.rpc.request('messaging.rpc.owner-reply-address', { conversationId: mail.data.conversationId, userId: mail.data.userId })).token;
      return { replyTo: this.replyAddress(token) };
    }
    return {};
  }

  private replyAddress(token: string | null | undefined): string | undefined {
    return token ? relayReplyAddress(token, this.config.RELAY_DOMAIN) : undefined;
  }

  /**
   * Identity and items keep only hashes of codes and tokens, so the job must carry them, and a farewell or an
   * invitation its address; once the job is done (sent, or failed for good) they leave Redis, and the kept job holds
   * the recipient's id alone (a farewell's: `{farewell: true}`; an invitation's: `{invitationId}`; no address).
   */
  private async scrub(job: Job<StoredEmailJobData>): Promise<void> {
    await job.updateData(recipientOf(job.data)).catch(() => undefined);
  }
}
