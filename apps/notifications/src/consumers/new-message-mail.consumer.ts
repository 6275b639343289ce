import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { InjectConfig } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import { EmailQueueRepository } from '../jobs/email-queue.repository';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { DURABLE_CONSUMERS, EMAIL_JOBS } from '../persisted-names';
import { MessageMailWindowsRepository } from './message-mail-windows.repository';
import { MessageNoticeConsumer } from './message-notice.consumer';

/**
 * How long the owner's e-mail about a finder's message waits: an owner with a push subscription was pushed at once, so
 * the e-mail follows only after `OWNER_EMAIL_DELAY_MINUTES` (and only if the message is still unread then, which the
 * worker asks); an owner without one is e-mailed at once.
 */
export function ownerEmailDelayMs(ownerHasPush: boolean, delayMinutes: number): number {
  return ownerHasPush ? Math.round(delayMinutes * 60_000) : 0;
}

/**
 * A message was written. From a finder: e-mail the owner, at most once per conversation per 15 minutes (the job of a
 * window is named by the event that opened it, so the window's later messages coalesce into that one job), delayed by
 * `ownerEmailDelayMs`. From the owner: e-mail the finder, if they left an address (looked up when the job runs).
 *
 * Crash-safe: the window is recorded before the job is enqueued, and a redelivered event finds the same window and
 * enqueues the same job id, which the queue refuses once it exists.
 */
@Injectable()
export class NewMessageMailConsumer extends MessageNoticeConsumer {
  constructor(
    private readonly emails: EmailQueueRepository,
    private readonly windows: MessageMailWindowsRepository,
    private readonly subscriptions: PushSubscriptionsRepository,
    @InjectConfig() private readonly config: Pick<NotificationsConfig, 'OWNER_EMAIL_DELAY_MINUTES'>,
  ) {
    super(DURABLE_CONSUMERS.newMessageMail);
  }

  async handle(event: DomainEvent<'messaging.message.created.v1'>): Promise<void> {
    const { conversationId, itemCode: tagCode, ownerUserId, messageId } = event.data;
    if (event.data.author === 'owner') {
      await this.emails.enqueue({ kind: EMAIL_JOBS.ownerReply, data: { conversationId, tagCode, messageId } }, event.id);
      return;
    }
    const window = await this.windows.windowOf(conversationId, event.id, new Date(event.occurredAt), messageId);
    if (!window) return;
    const ownerHasPush = (await this.subscriptions.listFor({ userId: ownerUserId })).length > 0;
    await this.emails.enqueue(
      // The message that opened the window: the worker asks whether it, or a later one, is still unread.
      { kind: EMAIL_JOBS.newMessage, data: { userId: ownerUserId, tagCode, conversationId, messageId: window.messageId } },
      window.eventId,
      { delayMs: ownerEmailDelayMs(ownerHasPush, this.config.OWNER_EMAIL_DELAY_MINUTES) },
    );
  }
}
