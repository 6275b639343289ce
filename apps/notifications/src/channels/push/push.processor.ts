import { Inject, Injectable } from '@nestjs/common';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { formatTagCode, type PushPayload } from '@homing/contracts';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../../config/notifications.config';
import { QUEUES } from '../../jobs/persisted-names';
import type { PushJobData, PushKind } from '../../jobs/push-jobs';
import { QueueWorker } from '../../jobs/queue-worker';
import { PushSubscriptionsRepository } from '../../push-subscriptions/push-subscriptions.repository';
import { DeliveriesRepository } from '../deliveries.repository';
import { isAllowedPushEndpoint } from './push-endpoints';
import { PushRefusedError, PushSender } from './push-sender';

/**
 * The worker of the `push` queue: reads the subscription when the job runs (one deleted meanwhile gets nothing),
 * checks its endpoint against the allowed push services again, records the delivery, and sends. A subscription the
 * push service calls gone (404/410) is deleted; a 429 waits as long as Retry-After says, without using up an attempt.
 */
@Injectable()
export class PushProcessor extends QueueWorker<PushJobData, PushKind> {
  constructor(
    @Inject(NOTIFICATIONS_CONFIG) private readonly config: NotificationsConfig,
    private readonly subscriptions: PushSubscriptionsRepository,
    private readonly sender: PushSender,
    private readonly deliveries: DeliveriesRepository,
  ) {
    super(QUEUES.push, config);
  }

  async process(job: Job<PushJobData, void, PushKind>, token?: string): Promise<void> {
    const jobId = job.id ?? '';
    const subscription = await this.subscriptions.findById(job.data.subscriptionId);
    if (!subscription) {
      this.logger.log(`${jobId} (${job.name}): the subscription is gone; nothing sent`);
      return;
    }
    // The allowed hosts may have changed since it was registered: never call a host that is not (or no longer) one.
    if (!isAllowedPushEndpoint(subscription.endpoint, this.config.PUSH_SERVICE_HOSTS)) {
      await this.subscriptions.deleteById(subscription.id);
      throw new UnrecoverableError('the endpoint is not on a known push service; subscription deleted');
    }
    const delivery = await this.deliveries.begin(jobId, 'push', job.name);
    if (delivery.status === 'sent') {
      this.logger.log(`${jobId} (${job.name}) was sent before; not sending again`);
      return;
    }
    try {
      await this.sender.send(subscription, payloadOf(job.data));
    } catch (error) {
      if (!(error instanceof PushRefusedError)) throw error;
      await this.refused(job, token, subscription.id, error);
    }
    await this.deliveries.markSent(jobId);
    this.logger.log(`${jobId} (${job.name}) sent on attempt ${delivery.attempts}`);
  }

  /** Always throws: what a refusal means for the subscription and the job. */
  private async refused(job: Job<PushJobData, void, PushKind>, token: string | undefined, subscriptionId: string, error: PushRefusedError): Promise<never> {
    const jobId = job.id ?? '';
    const permanent = error.outcome === 'gone' || error.outcome === 'permanent';
    await this.deliveries.markFailed(jobId, error.message, permanent);
    if (error.outcome === 'gone') {
      await this.subscriptions.deleteById(subscriptionId);
      this.logger.log(`${jobId} (${job.name}): subscription gone (${error.statusCode}), deleted`);
    }
    if (permanent) throw new UnrecoverableError(error.message);
    if (error.outcome === 'rate-limited' && token) {
      // The push service named when to come back: wait that long, as a delay rather than a failed attempt.
      await job.moveToDelayed(Date.now() + (error.retryAfterMs ?? 60_000), token);
      throw new DelayedError(error.message);
    }
    throw error;
  }
}

/** Where to look and who wrote, nothing more: the service worker words it in the browser's language. */
function payloadOf(data: PushJobData): PushPayload {
  return { kind: 'new-message', author: data.author, url: `/found/${formatTagCode(data.tagCode)}` };
}
