import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { HandlerConsumer } from '@homing/platform';
import { MessageMailWindowsRepository } from '../channels/email/message-mail-windows.repository';
import { EmailQueue } from '../jobs/email.queue';
import { DURABLE_CONSUMERS, EMAIL_JOBS } from '../jobs/persisted-names';
import { MESSAGE_NOTICE_STALE_AFTER_MS } from './stale-after';

/**
 * A message was written. From a finder: e-mail the owner, at most once per conversation per 15 minutes (the job of a
 * window is named by the event that opened it, so the window's later messages coalesce into that one job). From the
 * owner: e-mail the finder, if they left an address (looked up when the job runs).
 *
 * Crash-safe: the window is recorded before the job is enqueued, and a redelivered event finds the same window and
 * enqueues the same job id, which the queue refuses once it exists.
 */
@Injectable()
export class NewMessageMailConsumer implements HandlerConsumer<'messaging.message.created.v1'> {
  readonly durableName = DURABLE_CONSUMERS.newMessageMail;
  readonly subjects = ['messaging.message.created.v1'] as const;
  readonly startFrom = 'new';
  readonly staleAfterMs = MESSAGE_NOTICE_STALE_AFTER_MS;
  readonly idempotency = 'handler';

  constructor(
    private readonly emails: EmailQueue,
    private readonly windows: MessageMailWindowsRepository,
  ) {}

  async handle(event: DomainEvent<'messaging.message.created.v1'>): Promise<void> {
    const { author, conversationId, itemCode, ownerUserId } = event.data;
    if (author === 'owner') {
      await this.emails.enqueue(EMAIL_JOBS.ownerReply, event.id, { conversationId, tagCode: itemCode });
      return;
    }
    const windowEventId = await this.windows.windowOf(conversationId, event.id, new Date(event.occurredAt));
    if (!windowEventId) return;
    await this.emails.enqueue(EMAIL_JOBS.newMessage, windowEventId, { userId: ownerUserId, tagCode: itemCode });
  }
}
