import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { LedgerConsumer, Transaction } from '@homing/platform';
import { ErasedConversations } from '../conversations/erased-conversations';
import { ITEM_OWNERS_CONSUMER } from '../persisted-names';
import { ItemOwnersRepository } from './item-owners.repository';

type ItemOwnerEvents = 'items.item.created.v1' | 'items.item.claimed.v1' | 'items.item.updated.v1' | 'items.item.people-changed.v1' | 'items.item.deleted.v1';

/**
 * Keeps messaging's `item code → owner, co-owners, name` projection current from items' events, so messaging authorises on its own.
 * A deletion also deletes the item's conversations, in the same transaction.
 * Each event applies only if it is newer than the row (the item's version): a late event never undoes a later change.
 */
@Injectable()
export class ItemOwnersConsumer implements LedgerConsumer<ItemOwnerEvents> {
  readonly durableName = ITEM_OWNERS_CONSUMER;
  readonly subjects = ['items.item.created.v1', 'items.item.claimed.v1', 'items.item.updated.v1', 'items.item.people-changed.v1', 'items.item.deleted.v1'] as const;
  // A projection: every event the stream holds, each applied once, in a transaction with the ledger.
  readonly startFrom = 'all';
  readonly idempotency = 'ledger';

  constructor(
    private readonly itemOwners: ItemOwnersRepository,
    private readonly erasedConversations: ErasedConversations,
  ) {}

  async handle(event: DomainEvent<ItemOwnerEvents>, transaction: Transaction): Promise<void> {
    if (event.subject === 'items.item.deleted.v1') {
      await this.itemOwners.markDeleted(transaction, event.data.code, event.version);
      // Whatever the order of events: a deleted item's code never comes back, so its conversations can always go.
      await this.erasedConversations.eraseOfItem(transaction, event.data.code);
      return;
    }
    if (event.subject === 'items.item.updated.v1') {
      await this.itemOwners.rename(transaction, event.data.code, event.data.name, event.version);
      return;
    }
    if (event.subject === 'items.item.people-changed.v1') {
      await this.itemOwners.setPeople(transaction, { itemCode: event.data.code, ownerUserId: event.data.ownerUserId, coOwnerUserIds: event.data.coOwnerUserIds }, event.version);
      return;
    }
    // A claimed tag has no name yet (its owner names it later, a rename); a created item has one from the start.
    const name = event.subject === 'items.item.created.v1' ? event.data.name : undefined;
    await this.itemOwners.upsert(
      transaction,
      { itemCode: event.data.code, ownerUserId: event.data.ownerUserId, claimedAt: new Date(event.data.claimedAt), name },
      event.version,
    );
  }
}
