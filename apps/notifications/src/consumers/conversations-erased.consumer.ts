import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { EveryEventConsumer, type Transaction } from '@homing/platform';
import { DURABLE_CONSUMERS } from '../persisted-names';
import { DeliveriesRepository } from '../channels/deliveries.repository';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';

/**
 * Conversations were deleted whole (an owner's reset, an item's deletion, an erased account): their finders' push
 * subscriptions go too, since nothing will be pushed to those browsers again, and the records of what was e-mailed to
 * the finders. From the stream's first event, with no
 * staleness, once per event with the ledger, like every erasure.
 */
@Injectable()
export class ConversationsErasedConsumer extends EveryEventConsumer<'messaging.conversations.erased.v1'> {
  constructor(
    private readonly subscriptions: PushSubscriptionsRepository,
    private readonly deliveries: DeliveriesRepository,
  ) {
    super(DURABLE_CONSUMERS.conversationsErased, 'messaging.conversations.erased.v1');
  }

  async handle(event: DomainEvent<'messaging.conversations.erased.v1'>, transaction: Transaction): Promise<void> {
    await this.subscriptions.deleteAllOfConversations(event.data.conversationIds, transaction);
    await this.deliveries.deleteAllTo(event.data.conversationIds, transaction);
  }
}
