import { randomUUID } from 'node:crypto';
import { expectEventually, SmtpSink, type ServiceProcess } from '@homing/testing';
import { eventOf, NotificationsTestSetup } from './notifications-test-setup';

// Two runs of one job at once: a worker frozen mid-send (SIGSTOP, as a long pause or a lost Redis would) loses its
// BullMQ lock, and another worker is given the job while the first may still deliver it. The second finds the first's
// claim on the delivery row and comes back when it ends, by then sent: one mail. Without the claim both would send.
// The lock is as short as the configuration allows, so the stall window is seconds; the claim outlasts the freeze.
const JOB_LOCK_SECONDS = 2;
const DELIVERY_CLAIM_SECONDS = 30;

describe('one e-mail job run by two workers at once', () => {
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: 'https://homing.test' });
  const sink = new SmtpSink();
  const user = { id: randomUUID(), email: `twice-${randomUUID()}@example.test`, language: 'en' as const };
  const start = (role: 'consumer' | 'worker') =>
    setup.start({ NOTIFICATIONS_ROLE: role, JOB_LOCK_SECONDS: String(JOB_LOCK_SECONDS), DELIVERY_CLAIM_SECONDS: String(DELIVERY_CLAIM_SECONDS) }, { timeoutMs: 60_000 });
  let frozen: ServiceProcess | undefined;
  let standby: ServiceProcess | undefined;

  beforeAll(async () => {
    await sink.start();
    await setup.setUp({ SMTP_URL: sink.url });
    setup.answerUsers(() => user);
  });

  afterAll(async () => {
    frozen?.signal('SIGCONT');
    standby?.signal('SIGCONT');
    sink.releaseAll();
    await setup.tearDown();
    await sink.stop();
  });

  it('is sent once: the second run waits for the first run’s claim, then finds it sent', async () => {
    await start('consumer');
    // The second worker is started first and frozen, so that the first takes the job; it thaws (and waits for work
    // again) while the first holds the job, so the first's freeze lasts the stall window only, not a start-up.
    standby = await start('worker');
    standby.signal('SIGSTOP');
    frozen = await start('worker');
    await setup.consumerExists('identity.login-code.requested.v1', 'notifications__login-code-mail');

    sink.holdNext(1);
    const event = eventOf('identity.login-code.requested.v1', { userId: user.id, code: 'TWIC2345' });
    const jobId = `email_${event.id}_${user.id}`;
    await setup.publish(event);
    // Up to one idle wait (10 s) late: the frozen second worker may hold the queue's wake-up call.
    await expectEventually(() => expect(sink.heldCount).toBe(1), { timeoutMs: 30_000 });
    standby.signal('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    frozen.signal('SIGSTOP');

    // The frozen worker's lock lapses; the second worker is given the job and puts it back until the claim ends.
    const queue = setup.queue('email');
    await expectEventually(async () => expect(await queue.getJobState(jobId)).toBe('delayed'), { timeoutMs: 30_000 });
    expect(sink.mailsTo(user.email)).toHaveLength(0);

    // The first worker thaws and its SMTP hand-over completes: the mail, once, and the row says sent.
    frozen.signal('SIGCONT');
    sink.release();
    const mails = await sink.waitForMails(user.email, 1, (DELIVERY_CLAIM_SECONDS + 20) * 1000);
    expect(mails[0].text).toContain('TWIC2345');
    await expectEventually(async () => {
      const { rows } = await setup.db.query(`SELECT status, claimed_until FROM "${setup.schema}".deliveries WHERE job_id = $1`, [jobId]);
      expect(rows).toEqual([{ status: 'sent', claimed_until: null }]);
    });

    // Once the claim would have ended, the job runs again, finds it finished (sent, its data scrubbed by the first
    // run), and completes without a second mail.
    await expectEventually(async () => expect(await queue.getJobState(jobId)).toBe('completed'), { timeoutMs: (DELIVERY_CLAIM_SECONDS + 20) * 1000 });
    expect(sink.mailsTo(user.email)).toHaveLength(1);
  }, 150_000);
});
