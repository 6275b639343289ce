import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { HandlerConsumer } from '@homing/platform';
import { DURABLE_CONSUMERS, PUSH_JOBS } from '../jobs/persisted-names';
import { PushQueue } from '../jobs/push.queue';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { MESSAGE_NOTICE_STALE_AFTER_MS } from './stale-after';

/**
 * A message was written: push to every subscription of the other side, on every message (pushes are not
 * coalesced: a browser shows them as one notification per item, by tag). A finder's message goes to the owner's
 * subscriptions; an owner's reply to those of the finder's conversation. One job per subscription, named by the event
 * and the subscription, so a redelivered event pushes nothing again.
 */
@Injectable()
export class NewMessagePushConsumer implements HandlerConsumer<'messaging.message.created.v1'> {
  readonly durableName = DURABLE_CONSUMERS.newMessagePush;
  readonly subjects = ['messaging.message.created.v1'] as const;
  readonly startFrom = 'new';
  readonly staleAfterMs = MESSAGE_NOTICE_STALE_AFTER_MS;
  readonly idempotency = 'handler';

  constructor(
    private readonly pushes: PushQueue,
    private readonly subscriptions: PushSubscriptionsRepository,
  ) {}

  async handle(event: DomainEvent<'messaging.message.created.v1'>): Promise<void> {
    const { author, conversationId, itemCode, ownerUserId } = event.data;
    const recipients = await this.subscriptions.listFor(author === 'finder' ? { userId: ownerUserId } : { conversationId });
    for (const subscription of recipients) {
      await this.pushes.enqueue(PUSH_JOBS.newMessage, event.id, { subscriptionId: subscription.id, tagCode: itemCode, author });
    }
  }
}
