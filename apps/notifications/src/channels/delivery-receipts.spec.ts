import type { OutboxWriter } from '@homing/platform';
import type { DeliveriesRepository, DeliveryAttempt } from './deliveries.repository';
import { DeliveryReceipts } from './delivery-receipts';

const attempt: DeliveryAttempt = { jobId: 'email_e1_u1', channel: 'email', kind: 'login-code', attempts: 1, claimToken: '0190d7a4-6b1c-7c2e-9f3a-1d2e3f405162' };
// What pg throws when PostgreSQL restarts under a connection, and when a statement is wrong.
const restarting = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
const wrong = () => Object.assign(new Error('column "nope" does not exist'), { code: '42703' });

/** Receipts whose `markSent` fails with each of `failures` in turn, then succeeds; the calls it got. */
function receiptsFailing(...failures: Array<() => Error>) {
  const calls: DeliveryAttempt[] = [];
  const deliveries = {
    markSent: async (sent: DeliveryAttempt) => {
      calls.push(sent);
      const failure = failures.shift();
      if (failure) throw failure();
    },
  } as unknown as DeliveriesRepository;
  return { receipts: new DeliveryReceipts(deliveries, {} as OutboxWriter), calls };
}

describe('DeliveryReceipts.sent', () => {
  it('waits for a database that is away for a moment, and records the delivery once it answers', async () => {
    const { receipts, calls } = receiptsFailing(restarting, restarting, restarting);
    await receipts.sent(attempt, null);
    expect(calls).toHaveLength(4);
  });

  it('fails at once on an error that waiting would not mend', async () => {
    const { receipts, calls } = receiptsFailing(wrong);
    await expect(receipts.sent(attempt, null)).rejects.toThrow('column "nope" does not exist');
    expect(calls).toHaveLength(1);
  });

  it('gives up once its patience is spent, with the database’s error', async () => {
    const { receipts, calls } = receiptsFailing(...Array.from({ length: 50 }, () => restarting));
    await expect(receipts.sent(attempt, null, 690)).rejects.toThrow('terminating connection');
    // 100, then 200 ms waited; the next 400 would end at 700 ms at the earliest, past the 690. (The second try goes on
    // unless the first wait ran 390 ms late, so a loaded machine counts the same.)
    expect(calls).toHaveLength(3);
  });
});
