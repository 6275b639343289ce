import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { ErasureSecondPass, EveryEventConsumer, InjectConfig, type Transaction } from '@homing/platform';
import { DeliveriesRepository } from '../channels/deliveries.repository';
import type { NotificationsConfig } from '../config/notifications.config';
import { ItemPeopleRepository } from '../item-people/item-people.repository';
import { ItemSettingsRepository } from '../item-people/item-settings.repository';
import { DURABLE_CONSUMERS } from '../persisted-names';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';

/**
 * A user erased their account: what this service holds about them goes in one transaction, their push subscriptions
 * (endpoints and keys), the delivery records of the jobs addressed to them or to those subscriptions (the same
 * records their export lists), their notification settings and their place among items' people. An erasure must never be skipped, so this starts from the first event the stream holds
 * and has no staleness; each event is applied once, with the ledger.
 */
@Injectable()
export class UserDeletedConsumer extends EveryEventConsumer<'identity.user.deleted.v1'> {
  constructor(
    private readonly subscriptions: PushSubscriptionsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly itemPeople: ItemPeopleRepository,
    private readonly itemSettings: ItemSettingsRepository,
  ) {
    super(DURABLE_CONSUMERS.userDeleted, 'identity.user.deleted.v1');
  }

  async handle(event: DomainEvent<'identity.user.deleted.v1'>, transaction: Transaction): Promise<void> {
    const subscriber = { userId: event.data.userId };
    const subscriptionIds = (await this.subscriptions.listFor(subscriber, transaction)).map(({ id }) => id);
    await this.deliveries.deleteAllTo([subscriber.userId, ...subscriptionIds], transaction);
    await this.subscriptions.deleteAllOf(subscriber, transaction);
    await this.itemSettings.deleteOfUser(transaction, subscriber.userId);
    await this.itemPeople.forgetUser(transaction, subscriber.userId);
  }
}

/**
 * The same erasure once more, `ERASURE_SECOND_PASS_SECONDS` after it: whatever a request let through just before the
 * erasure wrote after the first pass (ErasureSecondPass).
 */
@Injectable()
export class UserDeletedSecondPass extends ErasureSecondPass {
  constructor(firstPass: UserDeletedConsumer, @InjectConfig() config: NotificationsConfig) {
    super(DURABLE_CONSUMERS.userDeletedSecondPass, firstPass, config);
  }
}
