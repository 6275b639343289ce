import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { ItemRecipientsService } from '../item-people/item-recipients.service';
import { PushQueueRepository } from '../jobs/push-queue.repository';
import { DURABLE_CONSUMERS, PUSH_JOBS } from '../persisted-names';
import { NotificationConsumer } from './notification.consumer';
import { SCAN_ALERT_STALE_AFTER_MS } from './stale-after';

/**
 * A lost item's tag was scanned: push to every subscription of the owner and of every co-owner who has push on for
 * the item, on every scan (pushes are not coalesced: a browser shows them as one notification per item, by tag). One
 * job per subscription, named by the event and the subscription, so a redelivered event pushes nothing again.
 */
@Injectable()
export class ScanAlertPushConsumer extends NotificationConsumer<'items.item.scanned.v1'> {
  constructor(
    private readonly pushes: PushQueueRepository,
    private readonly recipients: ItemRecipientsService,
  ) {
    super(DURABLE_CONSUMERS.scanAlertPush, 'items.item.scanned.v1', SCAN_ALERT_STALE_AFTER_MS);
  }

  async handle(event: DomainEvent<'items.item.scanned.v1'>): Promise<void> {
    const { code: tagCode, ownerUserId, scanId } = event.data;
    for (const recipient of await this.recipients.recipientsWithSubscriptionsOf(tagCode, ownerUserId)) {
      if (!recipient.push) continue;
      for (const subscriptionId of recipient.subscriptionIds) {
        await this.pushes.enqueue({ kind: PUSH_JOBS.scanAlert, data: { subscriptionId, tagCode, scanId } }, event.id);
      }
    }
  }
}
