import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { ItemRecipientsService } from '../item-people/item-recipients.service';
import { EmailQueueRepository } from '../jobs/email-queue.repository';
import { DURABLE_CONSUMERS, EMAIL_JOBS } from '../persisted-names';
import { NotificationConsumer } from './notification.consumer';
import { ScanAlertWindowsRepository } from './scan-alert-windows.repository';
import { SCAN_ALERT_STALE_AFTER_MS } from './stale-after';

/**
 * A lost item's tag was scanned: e-mail the owner and every co-owner who has e-mail on for the item, at once, each at
 * most once per item per 15 minutes. The window is the item's (the same scans' times for everyone); each person's job
 * of a window is named by the event that opened it and their id and carries that event's scan, so the window's later
 * scans coalesce into that person's one job. The job holds ids only: the worker asks items for the scan's time and
 * place when it sends.
 *
 * Crash-safe: the window is recorded before the job is enqueued, and a redelivered event finds the same window and
 * enqueues the same job id, which the queue refuses once it exists.
 */
@Injectable()
export class ScanAlertMailConsumer extends NotificationConsumer<'items.item.scanned.v1'> {
  constructor(
    private readonly emails: EmailQueueRepository,
    private readonly windows: ScanAlertWindowsRepository,
    private readonly recipients: ItemRecipientsService,
  ) {
    super(DURABLE_CONSUMERS.scanAlertMail, 'items.item.scanned.v1', SCAN_ALERT_STALE_AFTER_MS);
  }

  async handle(event: DomainEvent<'items.item.scanned.v1'>): Promise<void> {
    const { code: tagCode, ownerUserId, scanId, scannedAt } = event.data;
    const window = await this.windows.windowOf(tagCode, event.id, new Date(scannedAt), scanId);
    if (!window) return;
    for (const recipient of await this.recipients.recipientsOf(tagCode, ownerUserId)) {
      if (!recipient.email) continue;
      await this.emails.enqueue({ kind: EMAIL_JOBS.scanAlert, data: { userId: recipient.userId, tagCode, scanId: window.scanId } }, window.eventId);
    }
  }
}
