import { randomUUID } from 'node:crypto';
import { expectEventually, FaultProxy, SmtpSink, testInfra } from '@homing/testing';
import { eventOf, NotificationsTestSetup } from './notifications-test-setup';

// PostgreSQL restarting between the SMTP server's acceptance and the worker's `sent` row: that row is all that keeps
// the job's next run from sending again, so the worker waits for the database to record it (DeliveryReceipts) rather
// than failing the run. The service reaches PostgreSQL through a proxy that the test makes hang up on every connection.
describe('an e-mail sent while the database is away', () => {
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: 'https://homing.test' });
  const sink = new SmtpSink();
  const user = { id: randomUUID(), email: `away-${randomUUID()}@example.test`, language: 'en' as const };
  let proxy: FaultProxy;

  beforeAll(async () => {
    await sink.start();
    const database = new URL(testInfra().databaseUrl);
    proxy = await new FaultProxy(database.hostname, Number(database.port || 5432)).start();
    database.host = `127.0.0.1:${proxy.port}`;
    await setup.setUp({ SMTP_URL: sink.url });
    setup.answerUsers(() => user);
    await setup.start({ DATABASE_URL: database.toString() });
  });

  afterAll(async () => {
    await setup.tearDown();
    sink.releaseAll();
    await sink.stop();
    await proxy.stop();
  });

  it('is recorded as sent once the database is back, and not sent again', async () => {
    await setup.consumerExists('identity.login-code.requested.v1', 'notifications__login-code-mail');
    sink.holdNext(1);
    const event = eventOf('identity.login-code.requested.v1', { userId: user.id, code: 'AWAY6789' });
    await setup.publish(event);
    // The worker has read that no earlier run sent it and waits for the SMTP server's answer: now the database goes.
    await expectEventually(() => expect(sink.heldCount).toBe(1));
    proxy.set({ kind: 'refuse' });
    proxy.reset();
    sink.release();
    await sink.waitForMails(user.email, 1);
    // Longer than the job's first retry (2 s): without the wait for the database, that retry would send again.
    await new Promise((resolveWait) => setTimeout(resolveWait, 3000));
    proxy.set({ kind: 'pass' });

    await expectEventually(async () => {
      const { rows } = await setup.db.query(`SELECT status, attempts FROM "${setup.schema}".deliveries WHERE job_id = $1`, [`email_${event.id}_${user.id}`]);
      expect(rows).toEqual([{ status: 'sent', attempts: 1 }]);
    });
    // Completed on its first run, with no retry due: nothing is left that could send it again.
    expect(await setup.queue('email').getJobCounts('completed', 'failed', 'delayed', 'waiting', 'active')).toEqual({ completed: 1, failed: 0, delayed: 0, waiting: 0, active: 0 });
    expect(sink.mailsTo(user.email)).toHaveLength(1);
  }, 90_000);
});
