import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { LedgerConsumer, Transaction } from '@homing/platform';
import { DURABLE_CONSUMERS } from '../persisted-names';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';

/**
 * Conversations were deleted whole (an owner's reset, an item's deletion, an erased account): their finders' push
 * subscriptions go too, since nothing will be pushed to those browsers again. From the stream's first event, with no
 * staleness, once per event with the ledger, like every erasure.
 */
@Injectable()
export class ConversationsErasedConsumer implements LedgerConsumer<'messaging.conversations.erased.v1'> {
  readonly durableName = DURABLE_CONSUMERS.conversationsErased;
  readonly subjects = ['messaging.conversations.erased.v1'] as const;
  readonly startFrom = 'all';
  readonly idempotency = 'ledger';

  constructor(private readonly subscriptions: PushSubscriptionsRepository) {}

  async handle(event: DomainEvent<'messaging.conversations.erased.v1'>, transaction: Transaction): Promise<void> {
    await this.subscriptions.deleteAllOfConversations(event.data.conversationIds, transaction);
  }
}
