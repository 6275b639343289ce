import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { formatTagCode, type PushPayload, type UserLanguage } from '@homing/contracts';
import { InjectConfig, RpcClient } from '@homing/platform';
import type { NotificationsConfig } from '../../config/notifications.config';
import { pushJobOf, type PushJob, type PushJobData } from '../../jobs/push-jobs';
import { isLastRun, QueueWorker } from '../../jobs/queue-worker';
import { QUEUES } from '../../persisted-names';
import { PushSubscriptionsRepository, type StoredPushSubscription } from '../../push-subscriptions/push-subscriptions.repository';
import { DeliveriesRepository, HELD_ELSEWHERE, runsOf, type DeliveryAttempt } from '../deliveries.repository';
import { DeliveryReceipts, type MessageReceipt } from '../delivery-receipts';
import { scanOfAlert, type ScanOfAlert } from '../scan-of-alert';
import { isAllowedPushEndpoint } from './push-endpoints';
import { PushRefusedError, WebPushRepository } from './web-push.repository';

/**
 * The worker of the `push` queue: claims the delivery row, reads the subscription (one deleted meanwhile gets nothing),
 * checks its endpoint against the allowed push services again, sends, and records it sent. A subscription the push
 * service calls gone (404/410) is deleted; a 429 waits as long as Retry-After says, without using up an attempt.
 */
@Injectable()
export class PushProcessor extends QueueWorker<PushJobData> {
  constructor(
    @InjectConfig() private readonly config: NotificationsConfig,
    private readonly subscriptions: PushSubscriptionsRepository,
    private readonly webPush: WebPushRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly receipts: DeliveryReceipts,
    private readonly rpc: RpcClient,
  ) {
    super(QUEUES.push, config);
  }

  async process(job: Job<PushJobData>, token?: string): Promise<void> {
    const jobId = job.id ?? '';
    const push = pushJobOf(job);
    // The claim first, then the subscription: a row claimed after an erasure deleted the subscription's rows is always
    // followed by a read that finds it gone, and that run forgets its row (read first, a subscription read just before
    // the erasure could meet a claim made just after it, leaving the erased subscription's id in a new row).
    const attempt: DeliveryAttempt = { jobId, channel: 'push', kind: push.kind, attempts: runsOf(job), claimToken: randomUUID() };
    const claim = await this.deliveries.claim(attempt, this.config.DELIVERY_CLAIM_SECONDS);
    if (claim.outcome === 'sent-before') {
      this.logger.log(`${jobId} (${job.name}) was sent before; not sending again`);
      return;
    }
    // Another run holds it (a worker that lost its lock may still be sending): come back once that claim ends.
    if (claim.outcome === 'held-elsewhere') return await this.comeBackAt(job, token, DeliveriesRepository.retryAfter(claim), HELD_ELSEWHERE);
    const subscription = await this.subscriptionToSend(job, attempt, push.data.subscriptionId);
    if (!subscription) return;
    let handedOver = false;
    // A refusal's outcome, once recorded, has ended this run's claim (RECORD_OUTCOME): nothing left to release.
    let outcomeRecorded = false;
    try {
      const scan = push.kind === 'scan-alert' ? await scanOfAlert(this.rpc, push.data.scanId) : undefined;
      if (scan === null) {
        // A scan alert whose scan or item was deleted meanwhile: nothing left to tell, now or later.
        await this.deliveries.markSkipped(attempt, 'the scan or its item is gone');
        this.logger.log(`${jobId} (${job.name}) skipped: the scan or its item is gone`);
        return;
      }
      try {
        await this.webPush.send(subscription, payloadOf(push, await this.finderLanguage(subscription.conversationId), scan));
      } catch (error) {
        if (!(error instanceof PushRefusedError)) throw error;
        // A temporary refusal on the last run is the push's end too: `sending` would be left for good. (A rate limit
        // comes back later as a delay, not a failed run.)
        await this.deliveries.markFailed(attempt, error.message, isPermanent(error) || (error.outcome === 'temporary' && isLastRun(job)));
        outcomeRecorded = true;
        await this.refused(job, token, subscription.id, error);
      }
      handedOver = true;
      await this.receipts.sent(attempt, receiptOf(push));
      this.logger.log(`${jobId} (${job.name}) sent on attempt ${attempt.attempts}`);
    } catch (error) {
      // Failed before the push service had it: the retry need not wait for this claim to lapse. After: the claim is
      // the retry's only guard until it lapses.
      if (!handedOver && !outcomeRecorded) await this.deliveries.release(attempt);
      throw error;
    }
  }

  /**
   * The subscription the push goes to, read once this run holds the claim; null when it is gone (nothing sent, and no
   * row left). One whose endpoint is not, or no longer, on an allowed push service is deleted and the job fails for good.
   */
  private async subscriptionToSend(job: Job<PushJobData>, attempt: DeliveryAttempt, subscriptionId: string): Promise<StoredPushSubscription | null> {
    let subscription: StoredPushSubscription | null;
    try {
      subscription = await this.subscriptions.findById(subscriptionId);
    } catch (error) {
      await this.deliveries.release(attempt);
      throw error;
    }
    if (!subscription) {
      await this.deliveries.forget(attempt);
      this.logger.log(`${attempt.jobId} (${job.name}): the subscription is gone; nothing sent`);
      return null;
    }
    // The allowed hosts may have changed since it was registered: never call a host that is not (or no longer) one.
    if (!isAllowedPushEndpoint(subscription.endpoint, this.config.PUSH_SERVICE_HOSTS)) {
      await this.deliveries.forget(attempt);
      await this.subscriptions.deleteById(subscription.id);
      throw new UnrecoverableError('the endpoint is not on a known push service; subscription deleted');
    }
    return subscription;
  }

  /**
   * A finder's push is worded in the language of their conversation (asked of messaging when it is sent, as their
   * e-mails are); an owner's in their browser's, which the service worker knows.
   */
  private async finderLanguage(conversationId: string | null): Promise<UserLanguage | undefined> {
    if (!conversationId) return undefined;
    return (await this.rpc.request('messaging.rpc.get-finder-contact', { conversationId })).language;
  }

  /** Always throws: what a refusal, its outcome recorded, means for the subscription and the job. */
  private async refused(job: Job<PushJobData>, token: string | undefined, subscriptionId: string, error: PushRefusedError): Promise<never> {
    if (error.outcome === 'gone') {
      await this.subscriptions.deleteById(subscriptionId);
      this.logger.log(`${job.id ?? ''} (${job.name}): subscription gone (${error.statusCode}), deleted`);
    }
    if (isPermanent(error)) throw new UnrecoverableError(error.message);
    if (error.outcome === 'rate-limited' && token) {
      // The push service named when to come back: wait that long, as a delay rather than a failed attempt.
      return this.comeBackAt(job, token, Date.now() + (error.retryAfterMs ?? 60_000), error.message);
    }
    throw error;
  }
}

/** A refusal that no retry would change: the subscription is gone, or the push service refuses this push for good. */
function isPermanent(error: PushRefusedError): boolean {
  return error.outcome === 'gone' || error.outcome === 'permanent';
}

/**
 * Where to look and what happened, and for a finder their language: the service worker words it (else in the
 * browser's language). A scan alert names the scan's time and rough place: only the owner's browser can read it.
 */
export function payloadOf(push: PushJob, language: UserLanguage | undefined, scan?: ScanOfAlert): PushPayload {
  const worded = language ? { language } : {};
  switch (push.kind) {
    case 'new-message':
      return { kind: 'new-message', author: push.data.author, url: `/found/${formatTagCode(push.data.tagCode)}`, ...worded };
    case 'scan-alert':
      if (!scan) throw new Error('a scan alert is pushed with its scan');
      return { kind: 'scan-alert', url: `/item/${formatTagCode(push.data.tagCode)}`, scanned_at: scan.scannedAt, city: scan.city, country: scan.country, ...worded };
  }
}

/** The message a push told the other side of, for its receipt ("delivered"); a scan alert tells of no message. */
function receiptOf(push: PushJob): MessageReceipt | null {
  if (push.kind !== 'new-message') return null;
  const { conversationId, messageId, tagCode } = push.data;
  return conversationId && messageId !== undefined ? { itemCode: tagCode, conversationId, messageId } : null;
}
