import type { DomainEvent } from '@homing/contracts';
import type { Transaction } from '@homing/platform';
import type { ItemPeopleRepository } from '../item-people/item-people.repository';
import type { ItemSettingsRepository } from '../item-people/item-settings.repository';
import { ItemPeopleConsumer } from './item-people.consumer';
import type { ScanAlertWindowsRepository } from './scan-alert-windows.repository';

const OWNER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const CO_OWNER = '44444444-4444-4444-8444-444444444444';
const CODE = 'ABCDEFGHJKMNPQRS';
const AT = '2026-11-25T07:00:00.000Z';
const transaction = { name: 'the ledger’s' } as unknown as Transaction;

function setUp(newer: boolean) {
  const people = { apply: jest.fn(async () => newer), markDeleted: jest.fn(async () => newer) };
  const settings = { deleteOfOthersBefore: jest.fn(async () => undefined), deleteOfItemBefore: jest.fn(async () => undefined), deleteOfItem: jest.fn(async () => undefined) };
  const windows = { forgetItem: jest.fn(async () => undefined) };
  const consumer = new ItemPeopleConsumer(people as unknown as ItemPeopleRepository, settings as unknown as ItemSettingsRepository, windows as unknown as ScanAlertWindowsRepository);
  return { consumer, people, settings, windows };
}

const event = <S extends 'items.item.people-changed.v1' | 'items.item.transferred.v1' | 'items.item.deleted.v1'>(subject: S, data: DomainEvent<S>['data']) =>
  ({ id: 'event-1', subject, occurredAt: AT, version: 7, data }) as unknown as DomainEvent<S>;

describe('the people of each item', () => {
  it('records the people as of the item’s version, and drops the settings of whoever is no longer of it', async () => {
    const { consumer, people, settings } = setUp(true);
    await consumer.handle(event('items.item.people-changed.v1', { code: CODE, ownerUserId: OWNER, coOwnerUserIds: [CO_OWNER] }), transaction);
    expect(people.apply).toHaveBeenCalledWith(transaction, CODE, { ownerUserId: OWNER, coOwnerUserIds: [CO_OWNER] }, 7);
    expect(settings.deleteOfOthersBefore).toHaveBeenCalledWith(transaction, CODE, [OWNER, CO_OWNER], new Date(AT));
  });

  it('changes no settings for an event older than what it has', async () => {
    const { consumer, settings } = setUp(false);
    await consumer.handle(event('items.item.people-changed.v1', { code: CODE, ownerUserId: OWNER, coOwnerUserIds: [] }), transaction);
    expect(settings.deleteOfOthersBefore).not.toHaveBeenCalled();
  });

  it('erases a transferred item’s settings of before and its scan-alert window, and a deleted item’s settings all, keeping its version', async () => {
    const transferred = setUp(true);
    await transferred.consumer.handle(event('items.item.transferred.v1', { code: CODE, previousOwnerUserId: OWNER, ownerUserId: CO_OWNER }), transaction);
    expect(transferred.settings.deleteOfItemBefore).toHaveBeenCalledWith(transaction, CODE, new Date(AT));
    expect(transferred.windows.forgetItem).toHaveBeenCalledWith(transaction, CODE);

    const deleted = setUp(false);
    await deleted.consumer.handle(event('items.item.deleted.v1', { code: CODE }), transaction);
    expect(deleted.people.markDeleted).toHaveBeenCalledWith(transaction, CODE, 7);
    expect(deleted.settings.deleteOfItem).toHaveBeenCalledWith(transaction, CODE);
  });

  it('is never stale: from the stream’s first event, once per event with the ledger', () => {
    const { consumer } = setUp(true);
    expect(consumer).toMatchObject({ durableName: 'notifications__item-people', startFrom: 'all', idempotency: 'ledger' });
    expect(consumer).not.toHaveProperty('staleAfterMs');
  });
});
