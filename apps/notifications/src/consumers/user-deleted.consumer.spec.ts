import type { Transaction } from '@homing/platform';
import type { DeliveriesRepository } from '../channels/deliveries.repository';
import type { ItemPeopleRepository } from '../item-people/item-people.repository';
import type { ItemSettingsRepository } from '../item-people/item-settings.repository';
import type { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { UserDeletedConsumer } from './user-deleted.consumer';

const USER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const SUBSCRIPTIONS = ['5c1f8a34-9d0e-4f7b-8a21-6e3b2c1d0f99', '7d2e9b45-0e1f-4a8c-9b32-7f4c3d2e1a00'];

describe('erasing a deleted user', () => {
  it('deletes, in the ledger’s transaction, the deliveries to the user and their subscriptions, the subscriptions, their item settings and their place among items’ people', async () => {
    const calls: string[] = [];
    const transaction = { name: 'the ledger’s' } as unknown as Transaction;
    const subscriptions = {
      listFor: jest.fn(async () => (calls.push('list'), SUBSCRIPTIONS.map((id) => ({ id })))),
      deleteAllOf: jest.fn(async () => (calls.push('delete subscriptions'), 2)),
    };
    const deliveries = { deleteAllTo: jest.fn(async () => (calls.push('delete deliveries'), 3)) };
    const itemSettings = { deleteOfUser: jest.fn(async () => void calls.push('delete item settings')) };
    const itemPeople = { forgetUser: jest.fn(async () => void calls.push('forget among items’ people')) };
    const consumer = new UserDeletedConsumer(
      subscriptions as unknown as PushSubscriptionsRepository,
      deliveries as unknown as DeliveriesRepository,
      itemPeople as unknown as ItemPeopleRepository,
      itemSettings as unknown as ItemSettingsRepository,
    );
    await consumer.handle({ id: 'event-1', subject: 'identity.user.deleted.v1', occurredAt: '2026-11-25T07:00:00.000Z', data: { userId: USER } } as never, transaction);

    expect(subscriptions.listFor).toHaveBeenCalledWith({ userId: USER }, transaction);
    expect(deliveries.deleteAllTo).toHaveBeenCalledWith([USER, ...SUBSCRIPTIONS], transaction);
    expect(subscriptions.deleteAllOf).toHaveBeenCalledWith({ userId: USER }, transaction);
    // The subscriptions' ids name their push deliveries: read before the subscriptions go.
    expect(itemSettings.deleteOfUser).toHaveBeenCalledWith(transaction, USER);
    expect(itemPeople.forgetUser).toHaveBeenCalledWith(transaction, USER);
    expect(calls).toEqual(['list', 'delete deliveries', 'delete subscriptions', 'delete item settings', 'forget among items’ people']);
  });

  it('is an erasure: from the stream’s first event, once per event, never stale', () => {
    const consumer = new UserDeletedConsumer({} as PushSubscriptionsRepository, {} as DeliveriesRepository, {} as ItemPeopleRepository, {} as ItemSettingsRepository);
    expect(consumer).toMatchObject({ durableName: 'notifications__user-deleted', subjects: ['identity.user.deleted.v1'], startFrom: 'all', idempotency: 'ledger' });
    expect(consumer).not.toHaveProperty('staleAfterMs');
  });
});
