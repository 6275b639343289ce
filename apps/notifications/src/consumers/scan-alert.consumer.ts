import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { ItemRecipientsService } from '../item-people/item-recipients.service';
import { EmailQueueRepository } from '../jobs/email-queue.repository';
import { PushQueueRepository } from '../jobs/push-queue.repository';
import { DURABLE_CONSUMERS, EMAIL_JOBS, PUSH_JOBS, RETIRED_DURABLE_CONSUMERS } from '../persisted-names';
import { NotificationConsumer } from './notification.consumer';
import { ScanAlertWindowsRepository } from './scan-alert-windows.repository';
import { SCAN_ALERT_STALE_AFTER_MS } from './stale-after';

/**
 * A lost item's tag was scanned: its owner and co-owners are told, by push on every scan and by e-mail at most once a
 * window. One consumer for both, so a scan reads the item's people (with their settings and push subscriptions) once,
 * and is delivered and acknowledged once; it took over the two consumers that did each apart (`succeeds`).
 *
 * - **Push**, not coalesced (a browser shows them as one notification per item, by tag): to every subscription of the
 *   owner and of every co-owner who has push on for the item. One job per subscription, named by the event and the
 *   subscription.
 * - **E-mail**, at once, to the owner and every co-owner who has e-mail on for the item, each at most once per item per
 *   15 minutes. The window is the item's (the same scans' times for everyone); each person's job of a window is named
 *   by the event that opened it and their id and carries that event's scan, so the window's later scans coalesce into
 *   that person's one job.
 *
 * Jobs hold ids only: the workers ask items for the scan's time and place when they send. Crash-safe and idempotent by
 * the jobs' names: the window is recorded before the jobs are enqueued, and a redelivered event finds the same window
 * and enqueues the same job ids, which the queues refuse once they exist.
 */
@Injectable()
export class ScanAlertConsumer extends NotificationConsumer<'items.item.scanned.v1'> {
  readonly succeeds = [RETIRED_DURABLE_CONSUMERS.scanAlertMail, RETIRED_DURABLE_CONSUMERS.scanAlertPush];

  constructor(
    private readonly emails: EmailQueueRepository,
    private readonly pushes: PushQueueRepository,
    private readonly windows: ScanAlertWindowsRepository,
    private readonly recipients: ItemRecipientsService,
  ) {
    super(DURABLE_CONSUMERS.scanAlert, 'items.item.scanned.v1', SCAN_ALERT_STALE_AFTER_MS);
  }

  async handle(event: DomainEvent<'items.item.scanned.v1'>): Promise<void> {
    const { code: tagCode, ownerUserId, scanId, scannedAt } = event.data;
    // Side by side: the window is a write of this service's own, the item's people a read; neither needs the other.
    const [window, people] = await Promise.all([
      this.windows.windowOf(tagCode, event.id, new Date(scannedAt), scanId),
      this.recipients.recipientsWithSubscriptionsOf(tagCode, ownerUserId),
    ]);
    const pushedTo = people.filter((person) => person.push).flatMap((person) => person.subscriptionIds);
    await Promise.all([
      ...pushedTo.map((subscriptionId) => this.pushes.enqueue({ kind: PUSH_JOBS.scanAlert, data: { subscriptionId, tagCode, scanId } }, event.id)),
      ...(window
        ? people
            .filter((person) => person.email)
            .map((person) => this.emails.enqueue({ kind: EMAIL_JOBS.scanAlert, data: { userId: person.userId, tagCode, scanId: window.scanId } }, window.eventId))
        : []),
    ]);
  }
}
