import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { DomainEvent } from '@homing/contracts';
import type { EventConsumer } from '@homing/platform';
import { ItemOwnersRepository } from './item-owners.repository';

type ItemOwnerEvents = 'items.item.created.v1';

/** Keeps messaging's `item code → owner` projection current from items' events. */
@Injectable()
export class ItemOwnersConsumer implements EventConsumer<ItemOwnerEvents> {
  // WARNING: persisted in NATS as this consumer's position; see EventConsumer.
  readonly durableName = 'messaging__item-owners';
  readonly subjects = ['items.item.created.v1'] as const;

  constructor(private readonly itemOwners: ItemOwnersRepository) {}

  async handle(event: DomainEvent<ItemOwnerEvents>, manager: EntityManager): Promise<void> {
    await this.itemOwners.upsert(manager, {
      itemCode: event.data.code,
      ownerUserId: event.data.ownerUserId,
      claimedAt: new Date(event.data.claimedAt),
    });
  }
}
