import { Injectable } from '@nestjs/common';
import type { DomainEvent, PushSubscriber } from '@homing/contracts';
import { ItemRecipientsService } from '../item-people/item-recipients.service';
import { PushQueueRepository } from '../jobs/push-queue.repository';
import { DURABLE_CONSUMERS, PUSH_JOBS } from '../persisted-names';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { MessageNoticeConsumer } from './message-notice.consumer';

/**
 * A message was written: push to every subscription of the other side, on every message (pushes are not
 * coalesced: a browser shows them as one notification per item, by tag). A finder's goes to the item's owner and every
 * co-owner who has push on for the item; a reply of the owner or a co-owner to the finder of that conversation. One
 * job per subscription, named by the event and the subscription, so a redelivered event pushes nothing again.
 */
@Injectable()
export class NewMessagePushConsumer extends MessageNoticeConsumer {
  constructor(
    private readonly pushes: PushQueueRepository,
    private readonly subscriptions: PushSubscriptionsRepository,
    private readonly recipients: ItemRecipientsService,
  ) {
    super(DURABLE_CONSUMERS.newMessagePush);
  }

  async handle(event: DomainEvent<'messaging.message.created.v1'>): Promise<void> {
    const { author, itemCode: tagCode, conversationId, messageId } = event.data;
    // Each person's subscriptions read, and each push queued, side by side: a round trip each, and none needs another.
    const subscribers = await this.otherSideOf(event);
    const subscriptions = (await Promise.all(subscribers.map((subscriber) => this.subscriptions.listFor(subscriber)))).flat();
    await Promise.all(
      subscriptions.map((subscription) =>
        this.pushes.enqueue({ kind: PUSH_JOBS.newMessage, data: { subscriptionId: subscription.id, tagCode, author, conversationId, messageId } }, event.id),
      ),
    );
  }

  private async otherSideOf(event: DomainEvent<'messaging.message.created.v1'>): Promise<PushSubscriber[]> {
    const { author, itemCode, conversationId, ownerUserId } = event.data;
    if (author === 'owner') return [{ conversationId }];
    const recipients = await this.recipients.recipientsOf(itemCode, ownerUserId);
    return recipients.filter((recipient) => recipient.push).map(({ userId }) => ({ userId }));
  }
}
