import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
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
    // Each push queued side by side: a round trip each, and none needs another.
    await Promise.all(
      (await this.subscriptionIdsOfOtherSide(event)).map((subscriptionId) =>
        this.pushes.enqueue({ kind: PUSH_JOBS.newMessage, data: { subscriptionId, tagCode, author, conversationId, messageId } }, event.id),
      ),
    );
  }

  /** A reply's finder's subscriptions; for a finder's message, those of each person of the item with push on (one read). */
  private async subscriptionIdsOfOtherSide(event: DomainEvent<'messaging.message.created.v1'>): Promise<string[]> {
    const { author, itemCode, conversationId, ownerUserId } = event.data;
    if (author === 'owner') return (await this.subscriptions.listFor({ conversationId })).map(({ id }) => id);
    const recipients = await this.recipients.recipientsWithSubscriptionsOf(itemCode, ownerUserId);
    return recipients.filter((recipient) => recipient.push).flatMap((recipient) => recipient.subscriptionIds);
  }
}
