import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { EveryEventConsumer, type Transaction } from '@homing/platform';
import { DURABLE_CONSUMERS } from '../persisted-names';
import { DeliveriesRepository } from '../channels/deliveries.repository';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';

/**
 * A finder deleted their conversation: every push subscription of that conversation goes (their browsers' endpoints
 * and keys are personal data, and nothing will be pushed to them again), and the records of what was e-mailed to
 * them (the owner's replies, resume links: job ids that end with the conversation's id). An erasure must never be skipped, so this
 * starts from the first event the stream holds and has no staleness; each event is applied once, with the ledger.
 */
@Injectable()
export class FinderLeftConsumer extends EveryEventConsumer<'messaging.finder.left.v1'> {
  constructor(
    private readonly subscriptions: PushSubscriptionsRepository,
    private readonly deliveries: DeliveriesRepository,
  ) {
    super(DURABLE_CONSUMERS.finderLeft, 'messaging.finder.left.v1');
  }

  async handle(event: DomainEvent<'messaging.finder.left.v1'>, transaction: Transaction): Promise<void> {
    await this.subscriptions.deleteAllOf({ conversationId: event.data.conversationId }, transaction);
    await this.deliveries.deleteAllTo([event.data.conversationId], transaction);
  }
}
