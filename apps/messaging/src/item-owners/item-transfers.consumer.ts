import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { EveryEventConsumer, OutboxWriter, type Transaction } from '@homing/platform';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { ErasedConversations } from '../conversations/erased-conversations';
import { ITEM_TRANSFERS_CONSUMER } from '../persisted-names';
import { ItemOwnersRepository } from './item-owners.repository';

/**
 * An item passed to a new owner: every conversation of it goes, as by a reset, so the next owner starts with an empty
 * thread and the previous one's finders are not theirs. The owner change itself comes by `items.item.people-changed.v1`
 * (published with it, applied by the item-owners consumer).
 */
@Injectable()
export class ItemTransfersConsumer extends EveryEventConsumer<'items.item.transferred.v1'> {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly erasedConversations: ErasedConversations,
    private readonly outbox: OutboxWriter,
    private readonly itemOwners: ItemOwnersRepository,
  ) {
    super(ITEM_TRANSFERS_CONSUMER, 'items.item.transferred.v1');
  }

  async handle(event: DomainEvent<'items.item.transferred.v1'>, transaction: Transaction): Promise<void> {
    const itemCode = event.data.code;
    // The hand-over key was the previous owner's to know: the new owner's daily codes come from a new one. The item's
    // row first, then its conversations, as a hand-over takes them (its try counted on the item's row, then the
    // conversation locked): the other order deadlocked with a hand-over under way.
    await this.itemOwners.dropHandoverSecret(transaction, itemCode);
    // Only what began before the transfer: a finder who wrote to the new owner since (this consumer was behind, or
    // replays the stream) keeps their conversation.
    await this.erasedConversations.eraseOfItem(transaction, itemCode, { startedBefore: new Date(event.occurredAt) });
    // As after a reset: open streams and polls of the item drop the cleared thread and ask who may read it again.
    // `ownerUserId` is the previous owner's: the thread cleared was theirs, and it was they who gave the item away.
    const version = await this.conversations.nextThreadVersion(transaction);
    await this.outbox.record(
      transaction,
      'messaging.conversation.cleared.v1',
      { itemCode, ownerUserId: event.data.previousOwnerUserId },
      { aggregateId: itemCode, version },
    );
  }
}
