import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { EveryEventConsumer, type Transaction } from '@homing/platform';
import { RECEIPTS_CONSUMER } from '../persisted-names';
import { ConversationsService } from './conversations.service';

/**
 * Notifications told the other side of a message: its `delivered_at` (and that of the earlier messages of its author
 * in the conversation) is set once, with the receipts event, in the ledger's transaction. A redelivered event finds
 * its ledger row; a late one finds the messages delivered already and changes nothing.
 */
@Injectable()
export class ReceiptsConsumer extends EveryEventConsumer<'notifications.message.delivered.v1'> {
  constructor(private readonly conversations: ConversationsService) {
    super(RECEIPTS_CONSUMER, 'notifications.message.delivered.v1');
  }

  handle(event: DomainEvent<'notifications.message.delivered.v1'>, transaction: Transaction): Promise<void> {
    return this.conversations.messageDelivered(transaction, event.data);
  }
}
