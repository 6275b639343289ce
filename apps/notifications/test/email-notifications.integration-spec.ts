import { randomUUID } from 'node:crypto';
import type { DomainEvent, UserLanguage } from '@homing/contracts';
import { expectEventually, linkIn, ServiceProcess, SmtpSink } from '@homing/testing';
import { eventOf, NotificationsTestSetup, type TestRecipient } from './notifications-test-setup';

// The notifications service as its own process (consumers and worker), against real NATS, Redis, PostgreSQL and a
// real SMTP server: events on the stream become e-mails, once each (RELIABILITY F12, F14 in small). Identity's
// `get-user` is answered by a responder in this test's namespace; the e-2-e suite uses the real identity.
describe('e-mail notifications', () => {
  const sink = new SmtpSink();
  const publicUrl = 'https://homing.test';
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', LOG_LEVEL: 'debug', PUBLIC_URL: publicUrl, NOTIFICATIONS_ROLE: 'all' });
  const { schema } = setup;
  const users = new Map<string, TestRecipient>();
  // What happens, for a user, between identity reading them and its answer (an erasure, in one test).
  const beforeAnswering = new Map<string, () => Promise<void>>();
  // Every secret and address this suite hands over; none may appear in the service's log.
  const secrets = new Set<string>();
  let service: ServiceProcess;
  const queue = () => setup.queue('email');

  const newUser = (language: UserLanguage, hasPassword?: boolean) => {
    const user = { id: randomUUID(), email: `user-${randomUUID()}@example.test`, language, ...(hasPassword === undefined ? {} : { hasPassword }) };
    users.set(user.id, user);
    secrets.add(user.email);
    return user;
  };
  const secret = (value: string) => {
    secrets.add(value);
    return value;
  };
  const publish = (event: DomainEvent, msgId?: string) => setup.publish(event, msgId);
  const delivery = async (jobId: string) =>
    (await setup.db.query(`SELECT status, attempts, sent_at FROM "${schema}".deliveries WHERE job_id = $1`, [jobId])).rows[0] as
      | { status: string; attempts: number; sent_at: Date | null }
      | undefined;
  const jobIdOf = (event: DomainEvent, userId: string) => `email_${event.id}_${userId}`;

  beforeAll(async () => {
    await sink.start();
    await setup.setUp({ SMTP_URL: sink.url });
    setup.answerUsers(async (userId) => {
      await beforeAnswering.get(userId)?.();
      return users.get(userId);
    });
    service = await setup.start({}, { timeoutMs: 60_000 });
    // Side-effect consumers start at new events: publish only once they exist.
    await setup.consumerExists('identity.login-code.requested.v1', 'notifications__login-code-mail');
    await setup.consumerExists('identity.password-reset.requested.v1', 'notifications__password-reset-mail');
    await setup.consumerExists('identity.user.registered.v1', 'notifications__welcome-mail');
    await setup.consumerExists('items.item.claimed.v1', 'notifications__tag-activated-mail');
  });

  afterAll(async () => {
    const exitCodes = await setup.tearDown();
    if (service) {
      for (const value of secrets) expect(service.logs).not.toContain(value);
    }
    await sink.stop();
    expect(exitCodes).toEqual([0]);
  });

  it('e-mails a login code with its link, once, in the recipient language, even when the event is republished', async () => {
    const user = newUser('nl');
    const code = secret('K7QM2XPA');
    const event = eventOf('identity.login-code.requested.v1', { userId: user.id, code });
    await publish(event);
    const [mail] = await sink.waitForMails(user.email);
    expect(mail.subject).toBe('Je inlogcode voor Homing');
    expect(mail.text).toContain(code);
    expect(mail.html).toContain(code);
    expect(linkIn(mail, `${publicUrl}/login/code`)).toBe(`${publicUrl}/login/code?code=${code}`);
    expect(mail.messageId).toBe(`<${jobIdOf(event, user.id)}@homing>`);

    // The same event again, stored anew (another message id): the job id is the same, so nothing is sent.
    await publish(event, randomUUID());
    await setup.consumerSettled(event.subject, 'notifications__login-code-mail');
    await expectEventually(async () => expect(await (await queue().getJob(jobIdOf(event, user.id)))?.getState()).toBe('completed'));
    expect(sink.mailsTo(user.email)).toHaveLength(1);
    // The sink has the mail a moment before the worker records it as sent.
    await expectEventually(async () => expect(await delivery(jobIdOf(event, user.id))).toMatchObject({ status: 'sent', attempts: 1 }));
    // The completed job keeps the recipient's id only: the code left Redis when the mail was sent.
    expect((await queue().getJob(jobIdOf(event, user.id)))?.data).toEqual({ userId: user.id });
  });

  it('e-mails a password-reset link in Spanish, and a welcome mail with a set-password link in English', async () => {
    const spanish = newUser('es');
    const token = secret(`reset-${randomUUID()}`);
    await publish(eventOf('identity.password-reset.requested.v1', { userId: spanish.id, token }));
    const [reset] = await sink.waitForMails(spanish.email);
    expect(reset.subject).toBe('Restablece tu contraseña de Homing');
    expect(linkIn(reset, `${publicUrl}/reset-password/`)).toBe(`${publicUrl}/reset-password/${token}`);
    expect(reset.text).not.toMatch(/password:/i);

    const english = newUser('en');
    const passwordToken = secret(`set-${randomUUID()}`);
    await publish(eventOf('identity.user.registered.v1', { userId: english.id, passwordToken }));
    const [welcome] = await sink.waitForMails(english.email);
    expect(welcome.subject).toBe('Welcome to Homing');
    expect(linkIn(welcome, `${publicUrl}/set-password/`)).toBe(`${publicUrl}/set-password/${passwordToken}`);

    // A user registered without a set-password token gets no welcome mail.
    const silent = newUser('en');
    await publish(eventOf('identity.user.registered.v1', { userId: silent.id }));
    await setup.consumerSettled('identity.user.registered.v1', 'notifications__welcome-mail');
    expect(sink.mailsTo(silent.email)).toHaveLength(0);
  });

  it('welcomes a user who already chose a password with a login link, not a set-password link', async () => {
    const withPassword = newUser('nl', true);
    const passwordToken = secret(`set-${randomUUID()}`);
    await publish(eventOf('identity.user.registered.v1', { userId: withPassword.id, passwordToken }));
    const [welcome] = await sink.waitForMails(withPassword.email);
    expect(welcome.subject).toBe('Welkom bij Homing');
    expect(linkIn(welcome, `${publicUrl}/login`)).toBe(`${publicUrl}/login`);
    expect(welcome.text).not.toContain('/set-password/');
    expect(welcome.text).not.toContain(passwordToken);
  });

  it('tells the owner their tag is active, with a link to name the item', async () => {
    const owner = newUser('en');
    const event = eventOf('items.item.claimed.v1', { code: 'ABCD1234EFGH5678', ownerUserId: owner.id, claimedAt: new Date().toISOString() });
    await publish(event);
    const [mail] = await sink.waitForMails(owner.email);
    expect(mail.subject).toBe('Your Homing tag is active');
    expect(linkIn(mail, `${publicUrl}/login?ec=`)).toBe(`${publicUrl}/login?ec=ABCD-1234-EFGH-5678`);
  });

  it('retries SMTP 4xx answers and then delivers once (F12)', async () => {
    const user = newUser('en');
    sink.answerNext(451, 2);
    const event = eventOf('identity.login-code.requested.v1', { userId: user.id, code: secret('QWER7TYU') });
    await publish(event);
    const mails = await sink.waitForMails(user.email, 1, 30_000);
    expect(mails).toHaveLength(1);
    const messageId = `<${jobIdOf(event, user.id)}@homing>`;
    expect(sink.refused.filter((refusal) => refusal.messageId === messageId).map((refusal) => refusal.responseCode)).toEqual([451, 451]);
    // The sink has the mail a moment before the worker records it as sent.
    await expectEventually(async () => expect(await delivery(jobIdOf(event, user.id))).toMatchObject({ status: 'sent', attempts: 3 }));
  });

  it('fails a mail refused with 550 at once, without retrying, and keeps the failed job without its secret', async () => {
    const user = newUser('en');
    sink.answerNext(550);
    const token = secret(`reset-${randomUUID()}`);
    const event = eventOf('identity.password-reset.requested.v1', { userId: user.id, token });
    await publish(event);
    const jobId = jobIdOf(event, user.id);
    await expectEventually(async () => expect(await delivery(jobId)).toMatchObject({ status: 'failed', attempts: 1 }));
    const job = await expectEventually(async () => {
      // The state first, then the job: a job read before it failed would not say why.
      expect(await queue().getJobState(jobId)).toBe('failed');
      return (await queue().getJob(jobId))!;
    });
    expect(job.attemptsMade).toBe(1);
    expect(job.data).toEqual({ userId: user.id });
    expect(sink.refused.filter((refusal) => refusal.messageId === `<${jobId}@homing>`)).toHaveLength(1);
    expect(sink.mailsTo(user.email)).toHaveLength(0);
  });

  it('fails a mail for a user identity does not know, without retrying and without a delivery', async () => {
    const event = eventOf('items.item.claimed.v1', { code: 'ZZZZ1234EFGH5678', ownerUserId: randomUUID(), claimedAt: new Date().toISOString() });
    await publish(event);
    const jobId = jobIdOf(event, event.data.ownerUserId);
    const job = await expectEventually(async () => {
      // The state first, then the job: a job read before it failed would not say why.
      expect(await queue().getJobState(jobId)).toBe('failed');
      return (await queue().getJob(jobId))!;
    });
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toBe('recipient not found');
    // The run had claimed the row before it knew: with nobody to write to (an erased user, say), it leaves none.
    expect(await delivery(jobId)).toBeUndefined();
  });

  it('leaves no delivery row of a user erased while their mail was going out', async () => {
    const user = newUser('en');
    const event = eventOf('identity.login-code.requested.v1', { userId: user.id, code: secret('K7QM2XPB') });
    const jobId = jobIdOf(event, user.id);
    // Identity reads the user just before its erasure commits, and notifications' erasure (what its consumer deletes:
    // every row whose job id ends with the user's id) runs before the mail is out. The run held its claim before it
    // asked, so a claim made after an erasure always meets a lookup that finds nobody.
    let claimedBeforeAsking: string | undefined;
    beforeAnswering.set(user.id, async () => {
      claimedBeforeAsking = (await delivery(jobId))?.status;
      await setup.db.query(`DELETE FROM "${schema}".deliveries WHERE right(job_id, 37) = $1`, [`_${user.id}`]);
    });
    await publish(event);
    await sink.waitForMails(user.email);
    await expectEventually(async () => expect(await queue().getJobState(jobId)).toBe('completed'));
    expect(claimedBeforeAsking).toBe('sending');
    // The sent outcome found no row to record on, and made none: the erased id is in no row.
    expect(await delivery(jobId)).toBeUndefined();
  });
});
