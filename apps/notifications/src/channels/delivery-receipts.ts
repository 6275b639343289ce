import { Injectable } from '@nestjs/common';
import type { EventData } from '@homing/contracts';
import { OutboxWriter } from '@homing/platform';
import { DeliveriesRepository } from './deliveries.repository';

/** What a delivery told someone of: a message of a conversation (ids only). */
export type MessageReceipt = EventData<'notifications.message.delivered.v1'>;

/**
 * Marks a delivery sent and, when it told someone of a message, records `notifications.message.delivered.v1` in the
 * same transaction, so messaging's "delivered" exists exactly when the delivery does.
 */
@Injectable()
export class DeliveryReceipts {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  async sent(jobId: string, receipt: MessageReceipt | null): Promise<void> {
    if (!receipt) return this.deliveries.markSent(jobId);
    await this.deliveries.transaction(async (transaction) => {
      await this.deliveries.markSent(jobId, transaction);
      await this.outbox.record(transaction, 'notifications.message.delivered.v1', receipt, { aggregateId: receipt.conversationId, version: receipt.messageId });
    });
  }
}
