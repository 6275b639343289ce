import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { LedgerConsumer, Transaction } from '@homing/platform';
import { ItemPeopleRepository } from '../item-people/item-people.repository';
import { ItemSettingsRepository } from '../item-people/item-settings.repository';
import { DURABLE_CONSUMERS } from '../persisted-names';
import { ScanAlertWindowsRepository } from './scan-alert-windows.repository';

type ItemPeopleEvents = 'items.item.people-changed.v1' | 'items.item.transferred.v1' | 'items.item.deleted.v1';

/**
 * Keeps the people of each item (`item_people`) from items' events, so a finder's message or a scan is told to the
 * owner and every co-owner, and erases notification settings nobody may keep: of a deleted item, of a transferred
 * item (its next owner starts with the defaults), of a person no longer of the item; a transferred item's scan-alert
 * window goes too (the next owner's first scan alert opens their own). Never stale (who is told must
 * never be out of date, and an erasure never skipped): every event the stream holds, each applied once, with the
 * ledger; the people only if the event is newer than the row (the item's version), so a late event undoes nothing.
 */
@Injectable()
export class ItemPeopleConsumer implements LedgerConsumer<ItemPeopleEvents> {
  readonly durableName = DURABLE_CONSUMERS.itemPeople;
  readonly subjects = ['items.item.people-changed.v1', 'items.item.transferred.v1', 'items.item.deleted.v1'] as const;
  readonly startFrom = 'all';
  readonly idempotency = 'ledger';

  constructor(
    private readonly people: ItemPeopleRepository,
    private readonly settings: ItemSettingsRepository,
    private readonly scanAlertWindows: ScanAlertWindowsRepository,
  ) {}

  async handle(event: DomainEvent<ItemPeopleEvents>, transaction: Transaction): Promise<void> {
    const occurredAt = new Date(event.occurredAt);
    switch (event.subject) {
      case 'items.item.people-changed.v1': {
        const { code, ownerUserId, coOwnerUserIds } = event.data;
        if (await this.people.apply(transaction, code, { ownerUserId, coOwnerUserIds }, event.version)) {
          await this.settings.deleteOfOthersBefore(transaction, code, [ownerUserId, ...coOwnerUserIds], occurredAt);
        }
        return;
      }
      // Its people come with the people-changed event of the same transaction; here what was the previous owner's goes.
      case 'items.item.transferred.v1':
        await this.settings.deleteOfItemBefore(transaction, event.data.code, occurredAt);
        await this.scanAlertWindows.forgetItem(transaction, event.data.code);
        return;
      // Whatever the order of events: a deleted item's code never comes back, so its settings can always go.
      case 'items.item.deleted.v1':
        await this.people.markDeleted(transaction, event.data.code, event.version);
        await this.settings.deleteOfItem(transaction, event.data.code);
        return;
    }
  }
}
