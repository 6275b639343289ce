import { Injectable } from '@nestjs/common';
import { OutboxWriter, type Transaction } from '@homing/platform';
import { ConversationsRepository } from './conversations.repository';

/**
 * Deletes every conversation of an item (their messages, finders' addresses and tokens go with them) and records
 * `messaging.conversations.erased.v1` with their ids, so notifications drops the finders' push subscriptions. The one
 * way conversations are deleted whole: an owner's reset, an item's deletion or transfer, an erased account.
 */
@Injectable()
export class ErasedConversations {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  /** With `startedBefore`, only the conversations begun before then (a transfer spares those with the next owner). */
  async eraseOfItem(transaction: Transaction, itemCode: string, options: { startedBefore?: Date } = {}): Promise<void> {
    const conversationIds = await this.conversations.deleteByItem(transaction, itemCode, options.startedBefore);
    if (conversationIds.length === 0) return;
    const version = await this.conversations.nextThreadVersion(transaction);
    await this.outbox.record(transaction, 'messaging.conversations.erased.v1', { itemCode, conversationIds }, { aggregateId: itemCode, version });
  }
}
