import { randomUUID } from 'node:crypto';
import { expectEventually, SmtpSink } from '@homing/testing';
import { eventOf, NotificationsTestSetup } from './notifications-test-setup';

// RELIABILITY F11 in small: the consumer and the worker as separate processes (NOTIFICATIONS_ROLE); the worker is
// SIGKILLed while its SMTP hand-over waits for the server's answer, and another worker finishes the job after the stall
// window: the mail arrives once.
// The workers' lock (JOB_LOCK_SECONDS, 15 s by default) is short here so the test waits seconds for the stall window, and
// so is the killed run's claim on the delivery row (DELIVERY_CLAIM_SECONDS, 90 s by default), which the job's next run
// waits out.
const JOB_LOCK_SECONDS = 5;
const DELIVERY_CLAIM_SECONDS = 5;

describe('an e-mail worker killed mid-job', () => {
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: 'https://homing.test' });
  const sink = new SmtpSink();
  const user = { id: randomUUID(), email: `killed-${randomUUID()}@example.test`, language: 'en' as const };
  const start = (role: 'consumer' | 'worker') => setup.start({ NOTIFICATIONS_ROLE: role, JOB_LOCK_SECONDS: String(JOB_LOCK_SECONDS), DELIVERY_CLAIM_SECONDS: String(DELIVERY_CLAIM_SECONDS) }, { timeoutMs: 60_000 });

  beforeAll(async () => {
    await sink.start();
    await setup.setUp({ SMTP_URL: sink.url });
    setup.answerUsers(() => user);
  });

  afterAll(async () => {
    await setup.tearDown();
    sink.release();
    await sink.stop();
  });

  it('is finished by another worker after the stall window, and sent once', async () => {
    await start('consumer');
    const doomed = await start('worker');
    await setup.consumerExists('identity.login-code.requested.v1', 'notifications__login-code-mail');

    sink.holdNext(1);
    const event = eventOf('identity.login-code.requested.v1', { userId: user.id, code: 'KILL2345' });
    await setup.publish(event);
    await expectEventually(() => expect(sink.heldCount).toBe(1));
    expect(await doomed.stop('SIGKILL')).toBeNull();

    await start('worker');
    // From the new worker being ready: its start-up on a loaded machine is not part of the stall window.
    const started = Date.now();
    const mails = await sink.waitForMails(user.email, 1, 70_000);
    const recoveredInMs = Date.now() - started;
    sink.release();
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toContain('KILL2345');
    // The sink has the mail a moment before the worker records it as sent.
    await expectEventually(async () => {
      const { rows } = await setup.db.query(`SELECT status, attempts FROM "${setup.schema}".deliveries WHERE job_id = $1`, [`email_${event.id}_${user.id}`]);
      expect(rows).toEqual([{ status: 'sent', attempts: 2 }]);
    });
    // The killed worker's lock expires after JOB_LOCK_SECONDS; a stall check marks the job and the next one, as long
    // later, moves it back to wait: at most lock + two stall intervals from the kill (and a loaded machine's slack).
    expect(recoveredInMs).toBeLessThan(3 * JOB_LOCK_SECONDS * 1000 + 10_000);
    expect(sink.mailsTo(user.email)).toHaveLength(1);
  }, 120_000);
});
