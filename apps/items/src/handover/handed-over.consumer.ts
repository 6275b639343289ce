import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { EveryEventConsumer, OutboxWriter, type Transaction } from '@homing/platform';
import { ItemsRepository } from '../items/items.repository';
import { HANDED_OVER_CONSUMER } from '../persisted-names';

/**
 * A finder handed the item over with its owner's code (`messaging.conversation.handed-over.v1`): the item is back, so
 * lost mode ends, as when the owner marks it back, with `items.item.updated.v1`. Not if the owner marked it lost again
 * after the hand-over. Once per event, in the ledger's transaction.
 */
@Injectable()
export class HandedOverConsumer extends EveryEventConsumer<'messaging.conversation.handed-over.v1'> {
  constructor(
    private readonly items: ItemsRepository,
    private readonly outbox: OutboxWriter,
  ) {
    super(HANDED_OVER_CONSUMER, 'messaging.conversation.handed-over.v1');
  }

  async handle(event: DomainEvent<'messaging.conversation.handed-over.v1'>, transaction: Transaction): Promise<void> {
    const { itemCode, ownerUserId, closedAt } = event.data;
    const row = await this.items.endLostModeBefore(transaction, itemCode, ownerUserId, new Date(closedAt));
    if (!row) return;
    await this.outbox.record(transaction, 'items.item.updated.v1', { code: row.code, name: row.name, rewardCents: row.reward_cents }, { aggregateId: row.code, version: row.version });
  }
}
