import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { InjectConfig } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import { ItemRecipientsService } from '../item-people/item-recipients.service';
import { EmailQueueRepository } from '../jobs/email-queue.repository';
import { DURABLE_CONSUMERS, EMAIL_JOBS } from '../persisted-names';
import { MessageMailWindowsRepository } from './message-mail-windows.repository';
import { MessageNoticeConsumer } from './message-notice.consumer';

/**
 * How long a person's e-mail about a finder's message waits: one with a push subscription (and push on for the item)
 * was pushed at once, so the e-mail follows only after `OWNER_EMAIL_DELAY_MINUTES` (and only if the message is still
 * unread then, which the worker asks); one without is e-mailed at once.
 */
export function ownerEmailDelayMs(ownerHasPush: boolean, delayMinutes: number): number {
  return ownerHasPush ? Math.round(delayMinutes * 60_000) : 0;
}

/**
 * A message was written. From a finder: e-mail the item's owner and every co-owner who has e-mail on for the item, each
 * at most once per conversation per 15 minutes, delayed by `ownerEmailDelayMs`. The window is the conversation's (which
 * event opens 15 minutes is a fact of its messages' times, the same for everyone), and each person's job of a window is
 * named by the event that opened it and their id (`email_<opener>_<userId>`), so the window's later messages coalesce
 * into that person's one job: each gets their own coalesced mail, and one who turns e-mail on, or joins, mid-window
 * gets the window's mail then. From the owner or a co-owner (author `owner`): e-mail the finder, if they left an
 * address (looked up when the job runs).
 *
 * Crash-safe: the window is recorded before the jobs are enqueued, and a redelivered event finds the same window and
 * enqueues the same job ids, which the queue refuses once they exist.
 */
@Injectable()
export class NewMessageMailConsumer extends MessageNoticeConsumer {
  constructor(
    private readonly emails: EmailQueueRepository,
    private readonly windows: MessageMailWindowsRepository,
    private readonly recipients: ItemRecipientsService,
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
    // Side by side: the window is a write of this service's own, the item's people (with their settings and push
    // subscriptions, one statement) a read; neither needs the other, and each is a round trip on the way from a
    // finder's message to its e-mail (B3). A message in a window already told of costs the read for nothing, which is
    // cheaper than a round trip on every message.
    const [window, recipients] = await Promise.all([
      this.windows.windowOf(conversationId, event.id, new Date(event.occurredAt), messageId),
      this.recipients.recipientsWithSubscriptionsOf(tagCode, ownerUserId),
    ]);
    if (!window) return;
    await Promise.all(
      recipients
        .filter((recipient) => recipient.email)
        .map((recipient) =>
          this.emails.enqueue(
            // The message that opened the window: the worker asks whether it, or a later one, is still unread.
            { kind: EMAIL_JOBS.newMessage, data: { userId: recipient.userId, tagCode, conversationId, messageId: window.messageId } },
            window.eventId,
            // Push off for the item: nothing was pushed to them, so the e-mail is all they get, at once.
            { delayMs: ownerEmailDelayMs(recipient.push && recipient.subscriptionIds.length > 0, this.config.OWNER_EMAIL_DELAY_MINUTES) },
          ),
        ),
    );
  }
}
