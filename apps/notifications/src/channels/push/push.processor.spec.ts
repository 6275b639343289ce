import { UnrecoverableError, type Job } from 'bullmq';
import type { RpcClient } from '@homing/platform';
import type { NotificationsConfig } from '../../config/notifications.config';
import type { PushJobData } from '../../jobs/push-jobs';
import type { PushSubscriptionsRepository, StoredPushSubscription } from '../../push-subscriptions/push-subscriptions.repository';
import type { DeliveriesRepository, DeliveryClaim } from '../deliveries.repository';
import type { DeliveryReceipts } from '../delivery-receipts';
import { parsePushServiceHosts } from './push-endpoints';
import { PushProcessor } from './push.processor';
import { PushRefusedError } from './web-push.repository';
import type { WebPushRepository } from './web-push.repository';

const SUBSCRIPTION_ID = '5d0c2a4e-7f3b-4c1d-9e8a-2b6f1c3d4e5f';
const ALLOWED: StoredPushSubscription = { id: SUBSCRIPTION_ID, endpoint: 'https://push.example.test/abc', p256dh: 'p256dh', auth: 'auth', conversationId: null };

// The push worker's order of work, with its repositories faked: what it asks, and in which order. The claim comes
// before the subscription is read, so that a run whose subscription an erasure deleted meanwhile leaves no row
// (the real statements are tested against PostgreSQL in delivery-claims.integration-spec.ts).
function setUp(subscription: StoredPushSubscription | null, claim: DeliveryClaim = { outcome: 'claimed' }) {
  const steps: string[] = [];
  const deliveries = {
    claim: jest.fn(async () => (steps.push('claim'), claim)),
    forget: jest.fn(async () => void steps.push('forget')),
    release: jest.fn(async () => void steps.push('release')),
    markFailed: jest.fn(async () => void steps.push('mark failed')),
    markSkipped: jest.fn(async () => void steps.push('mark skipped')),
  };
  const subscriptions = {
    findById: jest.fn(async () => (steps.push('read subscription'), subscription)),
    deleteById: jest.fn(async () => void steps.push('delete subscription')),
  };
  const webPush = { send: jest.fn(async () => void steps.push('send')) };
  const receipts = { sent: jest.fn(async () => void steps.push('record sent')) };
  const config = { DELIVERY_CLAIM_SECONDS: 90, PUSH_SERVICE_HOSTS: parsePushServiceHosts('push.example.test') } as unknown as NotificationsConfig;
  const processor = new PushProcessor(
    config,
    subscriptions as unknown as PushSubscriptionsRepository,
    webPush as unknown as WebPushRepository,
    deliveries as unknown as DeliveriesRepository,
    receipts as unknown as DeliveryReceipts,
    {} as RpcClient,
  );
  const job = { id: `push_event-1_${SUBSCRIPTION_ID}`, name: 'new-message', data: { subscriptionId: SUBSCRIPTION_ID, tagCode: 'ABCDEFGHJKMNPQRS', author: 'finder' }, attemptsMade: 0, attemptsStarted: 1 } as unknown as Job<PushJobData>;
  return { processor, job, steps, webPush, deliveries };
}

describe('PushProcessor', () => {
  it('claims the delivery row before it reads the subscription, then sends and records it sent', async () => {
    const { processor, job, steps } = setUp(ALLOWED);
    await processor.process(job, 'lock-token');
    expect(steps).toEqual(['claim', 'read subscription', 'send', 'record sent']);
  });

  it('forgets the row it claimed when the subscription is gone (an erasure, say), and sends nothing', async () => {
    const { processor, job, steps, webPush } = setUp(null);
    await processor.process(job, 'lock-token');
    expect(steps).toEqual(['claim', 'read subscription', 'forget']);
    expect(webPush.send).not.toHaveBeenCalled();
  });

  it('forgets its row, deletes the subscription and fails for good when the endpoint is not an allowed push service', async () => {
    const { processor, job, steps, webPush } = setUp({ ...ALLOWED, endpoint: 'https://elsewhere.example.test/abc' });
    await expect(processor.process(job, 'lock-token')).rejects.toBeInstanceOf(UnrecoverableError);
    expect(steps).toEqual(['claim', 'read subscription', 'forget', 'delete subscription']);
    expect(webPush.send).not.toHaveBeenCalled();
  });

  it('reads nothing when the job was sent before', async () => {
    const { processor, job, steps } = setUp(ALLOWED, { outcome: 'sent-before' });
    await processor.process(job, 'lock-token');
    expect(steps).toEqual(['claim']);
  });

  it('records a temporary refusal as to be tried again, and as failed for good on the job’s last run', async () => {
    for (const [attemptsMade, forGood] of [[0, false], [7, true]] as const) {
      const { processor, job, webPush, deliveries } = setUp(ALLOWED);
      Object.assign(job, { attemptsMade, attemptsStarted: attemptsMade + 1, opts: { attempts: 8 } });
      webPush.send.mockRejectedValueOnce(new PushRefusedError(503, 'temporary'));
      await expect(processor.process(job, 'lock-token')).rejects.toBeInstanceOf(PushRefusedError);
      expect(deliveries.markFailed).toHaveBeenCalledWith(expect.objectContaining({ jobId: job.id }), expect.any(String), forGood);
    }
  });
});
