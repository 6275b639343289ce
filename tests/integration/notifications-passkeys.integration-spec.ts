import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { DomainEvent, UserLanguage } from '@homing/contracts';
import { expectEventually, linkIn, SmtpSink } from '@homing/testing';
import { eventOf, NotificationsTestSetup, type TestRecipient } from '../../apps/notifications/test/notifications-test-setup';

const DAY = 24 * 60 * 60_000;

// Passkey e-mails: identity tells of a passkey added to or deleted from an account (`identity.passkey.added.v1`,
// `identity.passkey.deleted.v1`: ids and the provider's public name), and the owner is e-mailed at once, in their
// language (asked of identity's `get-user`, answered by a responder here), with the provider and the time, and a link to
// their account page. One process in the role `all`, a real SMTP server.
describe('e-mails about passkeys', () => {
  const publicUrl = 'https://homing.test';
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: publicUrl });
  const { schema } = setup;
  const mail = new SmtpSink();
  const users = new Map<string, TestRecipient>();
  let emailQueue: Queue;

  const newUser = (language: UserLanguage) => {
    const user = { id: randomUUID(), email: `user-${randomUUID()}@example.test`, language };
    users.set(user.id, user);
    return user;
  };
  const added = (userId: string, provider: string | null, occurredAt?: Date) => eventOf('identity.passkey.added.v1', { userId, passkeyId: randomUUID(), provider }, occurredAt);
  const deleted = (userId: string, provider: string | null) => eventOf('identity.passkey.deleted.v1', { userId, passkeyId: randomUUID(), provider });
  const publish = (event: DomainEvent, msgId?: string) => setup.publish(event, msgId);
  const jobIdOf = (event: DomainEvent, userId: string) => `email_${event.id}_${userId}`;
  const deliveryOf = async (jobId: string) => (await setup.db.query(`SELECT kind, status FROM "${schema}".deliveries WHERE job_id = $1`, [jobId])).rows[0];

  beforeAll(async () => {
    await mail.start();
    await setup.setUp({ SMTP_URL: mail.url });
    setup.answerUsers((userId) => users.get(userId));
    await setup.start({ NOTIFICATIONS_ROLE: 'all' }, { timeoutMs: 60_000 });
    // Consumers start at new events: publish only once they exist.
    await setup.consumerExists('identity.passkey.added.v1', 'notifications__passkey-added-mail');
    await setup.consumerExists('identity.passkey.deleted.v1', 'notifications__passkey-deleted-mail');
    emailQueue = setup.queue('email');
  });

  afterAll(async () => {
    const exitCodes = await setup.tearDown();
    for (const service of setup.processes) {
      for (const user of users.values()) expect(service.logs).not.toContain(user.email);
    }
    await mail.stop();
    expect(exitCodes).toEqual(exitCodes.map(() => 0));
  });

  it.each([
    ['en', 'A passkey was added to your Homing account', 'a passkey from iCloud Keychain was added', 'delete the passkey under Account'],
    ['nl', 'Er is een toegangssleutel toegevoegd aan je Homing-account', 'is een toegangssleutel van iCloud Keychain toegevoegd', 'verwijder de toegangssleutel onder Account'],
    ['es', 'Se ha añadido una llave de acceso a tu cuenta de Homing', 'se añadió una llave de acceso de iCloud Keychain', 'elimina la llave de acceso en Cuenta'],
  ] as const)('e-mails the owner in their language (%s) that a passkey was added, naming its provider, with a link to their account', async (language, subject, named, advice) => {
    const user = newUser(language);
    const event = added(user.id, 'iCloud Keychain');
    await publish(event);
    const [received] = await mail.waitForMails(user.email);
    expect(received.subject).toBe(subject);
    expect(received.messageId).toBe(`<${jobIdOf(event, user.id)}@homing>`);
    expect(received.text).toContain(named);
    expect(received.html).toContain(named);
    expect(received.text).toContain(advice);
    expect(linkIn(received, `${publicUrl}/account`)).toBe(`${publicUrl}/account`);
    await expectEventually(async () => expect(await deliveryOf(jobIdOf(event, user.id))).toEqual({ kind: 'passkey-added', status: 'sent' }));
  });

  it.each([
    ['en', 'A passkey was deleted from your Homing account', 'a passkey from Google Password Manager was deleted'],
    ['nl', 'Er is een toegangssleutel verwijderd uit je Homing-account', 'is een toegangssleutel van Google Password Manager verwijderd'],
    ['es', 'Se ha eliminado una llave de acceso de tu cuenta de Homing', 'se eliminó una llave de acceso de Google Password Manager'],
  ] as const)('e-mails the owner in their language (%s) that a passkey was deleted, naming its provider', async (language, subject, named) => {
    const user = newUser(language);
    const event = deleted(user.id, 'Google Password Manager');
    await publish(event);
    const [received] = await mail.waitForMails(user.email);
    expect(received.subject).toBe(subject);
    expect(received.messageId).toBe(`<${jobIdOf(event, user.id)}@homing>`);
    expect(received.text).toContain(named);
    expect(linkIn(received, `${publicUrl}/account`)).toBe(`${publicUrl}/account`);
  });

  it('says only "a passkey" when the provider is unknown', async () => {
    const user = newUser('en');
    await publish(deleted(user.id, null));
    const [received] = await mail.waitForMails(user.email);
    expect(received.text).toMatch(/, a passkey was deleted from your Homing account\./);
    expect(received.text).not.toContain('from null');
  });

  it('sends one e-mail for an event delivered twice, and keeps the user’s id alone in the finished job', async () => {
    const user = newUser('nl');
    const event = added(user.id, 'YubiKey 5 Series');
    await publish(event);
    await mail.waitForMails(user.email);
    // The same event stored anew (another message id), as a relay retrying after a lost acknowledgement would.
    await publish(event, randomUUID());
    await setup.consumerSettled('identity.passkey.added.v1', 'notifications__passkey-added-mail');
    await setup.jobsSettled('email');
    expect(mail.mailsTo(user.email)).toHaveLength(1);
    await expectEventually(async () => expect((await emailQueue.getJob(jobIdOf(event, user.id)))?.data).toEqual({ userId: user.id }));
  });

  it('sends nothing for an event older than a day', async () => {
    const user = newUser('es');
    const stale = added(user.id, 'iCloud Keychain', new Date(Date.now() - 2 * DAY));
    await publish(stale);
    // A fresh one after it is mailed: the consumer runs, and drops the stale one (acknowledged, no job).
    const fresh = added(user.id, 'iCloud Keychain');
    await publish(fresh);
    const [received] = await mail.waitForMails(user.email);
    expect(received.messageId).toBe(`<${jobIdOf(fresh, user.id)}@homing>`);
    await setup.consumerSettled('identity.passkey.added.v1', 'notifications__passkey-added-mail');
    await setup.jobsSettled('email');
    expect(mail.mailsTo(user.email)).toHaveLength(1);
    expect(await emailQueue.getJob(jobIdOf(stale, user.id))).toBeUndefined();
  });
});
