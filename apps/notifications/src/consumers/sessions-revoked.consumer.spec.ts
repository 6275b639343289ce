import type { Transaction } from '@homing/platform';
import type { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { SessionsRevokedConsumer } from './sessions-revoked.consumer';

const USER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const SESSIONS = ['019ae0b2-6a4c-7d3e-8f10-2b3c4d5e6f70', '019ae0b2-6a4c-7d3e-8f10-2b3c4d5e6f71'];

describe('the push subscriptions of revoked sessions', () => {
  it('deletes, in the ledger’s transaction, the user’s subscriptions registered from the revoked sessions', async () => {
    const transaction = { name: 'the ledger’s' } as unknown as Transaction;
    const subscriptions = { deleteOfSessions: jest.fn(async () => 1) };
    const consumer = new SessionsRevokedConsumer(subscriptions as unknown as PushSubscriptionsRepository);
    await consumer.handle(
      { id: 'event-1', subject: 'identity.sessions.revoked.v1', occurredAt: '2026-12-03T07:00:00.000Z', data: { userId: USER, sessionIds: SESSIONS } } as never,
      transaction,
    );
    expect(subscriptions.deleteOfSessions).toHaveBeenCalledWith(USER, SESSIONS, transaction);
  });

  it('is an erasure: from the stream’s first event, once per event, never stale', () => {
    const consumer = new SessionsRevokedConsumer({} as PushSubscriptionsRepository);
    expect(consumer).toMatchObject({ durableName: 'notifications__sessions-revoked', subjects: ['identity.sessions.revoked.v1'], startFrom: 'all', idempotency: 'ledger' });
    expect(consumer).not.toHaveProperty('staleAfterMs');
  });
});
