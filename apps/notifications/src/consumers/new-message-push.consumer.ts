import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { PushQueueRepository } from '../jobs/push-queue.repository';
import { DURABLE_CONSUMERS, PUSH_JOBS } from '../persisted-names';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { MessageNoticeConsumer, otherSideOf } from './message-notice.consumer';

/**
 * A message was written: push to every subscription of the other side, on every message (pushes are not
 * coalesced: a browser shows them as one notification per item, by tag). One job per subscription, named by the event
 * and the subscription, so a redelivered event pushes nothing again.
 */
@Injectable()
export class NewMessagePushConsumer extends MessageNoticeConsumer {
  constructor(
    private readonly pushes: PushQueueRepository,
    private readonly subscriptions: PushSubscriptionsRepository,
  ) {
    super(DURABLE_CONSUMERS.newMessagePush);
  }

  async handle(event: DomainEvent<'messaging.message.created.v1'>): Promise<void> {
    const { author, itemCode: tagCode, conversationId, messageId } = event.data;
    for (const subscription of await this.subscriptions.listFor(otherSideOf(event))) {
      await this.pushes.enqueue({ kind: PUSH_JOBS.newMessage, data: { subscriptionId: subscription.id, tagCode, author, conversationId, messageId } }, event.id);
    }
  }
}
