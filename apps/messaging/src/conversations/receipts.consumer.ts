import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { HandlerConsumer } from '@homing/platform';
import { RECEIPTS_CONSUMER } from '../persisted-names';
import { ConversationsService } from './conversations.service';

/**
 * Notifications told the other side of a message: its `delivered_at` (and that of the earlier messages of its author
 * in the conversation) is set once, with the receipts event, in one statement. Idempotent by that statement, not a
 * ledger: a redelivered or late event finds the messages delivered already and changes nothing, records nothing.
 * Every event the stream holds is handled (`all`): a receipt is never stale.
 */
@Injectable()
export class ReceiptsConsumer implements HandlerConsumer<'notifications.message.delivered.v1'> {
  readonly durableName = RECEIPTS_CONSUMER;
  readonly subjects = ['notifications.message.delivered.v1'] as const;
  readonly startFrom = 'all';
  readonly idempotency = 'handler';

  constructor(private readonly conversations: ConversationsService) {}

  handle(event: DomainEvent<'notifications.message.delivered.v1'>): Promise<void> {
    return this.conversations.messageDelivered(event.data);
  }
}
