import { Injectable } from '@nestjs/common';
import { OutboxWriter, type Transaction } from '@homing/platform';
import { ConversationsRepository } from './conversations.repository';

/**
 * Deletes every conversation of an item (their messages, finders' addresses and tokens go with them) and records
 * `messaging.conversations.erased.v1` with their ids, so notifications drops the finders' push subscriptions. The one
 * way conversations are deleted whole: an owner's reset, an item's deletion, an erased account.
 */
@Injectable()
export class ErasedConversations {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  async eraseOfItem(transaction: Transaction, itemCode: string): Promise<void> {
    const conversationIds = await this.conversations.deleteByItem(transaction, itemCode);
    if (conversationIds.length === 0) return;
    const version = await this.conversations.nextThreadVersion(transaction);
    await this.outbox.record(transaction, 'messaging.conversations.erased.v1', { itemCode, conversationIds }, { aggregateId: itemCode, version });
  }
}
