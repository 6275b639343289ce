import { Injectable } from '@nestjs/common';
import type { EventData } from '@homing/contracts';
import { OutboxWriter } from '@homing/platform';
import { DeliveriesRepository, type DeliveryAttempt } from './deliveries.repository';

/** What a delivery told someone of: a message of a conversation (ids only). */
export type MessageReceipt = EventData<'notifications.message.delivered.v1'>;

/**
 * Marks a delivery sent and, when it told someone of a message, records `notifications.message.delivered.v1` in the
 * same statement, so messaging's "delivered" exists exactly when the delivery does.
 */
@Injectable()
export class DeliveryReceipts {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  async sent(attempt: DeliveryAttempt, receipt: MessageReceipt | null): Promise<void> {
    if (!receipt) return this.deliveries.markSent(attempt);
    await this.outbox.recordAlong(this.deliveries.sentStatement(attempt), 'notifications.message.delivered.v1', receipt, { aggregateId: receipt.conversationId, version: receipt.messageId });
  }
}
