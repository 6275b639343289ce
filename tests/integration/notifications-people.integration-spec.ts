import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Client } from 'pg';
import type { DomainEvent, UserLanguage } from '@homing/contracts';
import { expectEventually, linkIn, PushSink, SmtpSink } from '@homing/testing';
import { eventOf, itemEventOf, NotificationsTestSetup, type TestRecipient } from '../../apps/notifications/test/notifications-test-setup';

// The people of an item (issue 27): a finder's message and a scan are told to the owner and every co-owner, as items'
// `items.item.people-changed.v1` says (applied only if newer than what notifications has), each by e-mail and push as
// their own settings for the item say (both on by default, `notifications.rpc.{get,set}-item-settings`). An invitation
// (`items.invitation.created.v1`, secrets stream) is e-mailed to its address in the invitee's language, else the
// inviter's. One process in the role `all`; identity and messaging are answered by responders here.
describe('notifications to the people of an item', () => {
  const publicUrl = 'https://homing.test';
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: publicUrl, OWNER_EMAIL_DELAY_MINUTES: '0' });
  const { namespace, schema } = setup;
  const mail = new SmtpSink();
  const push = new PushSink();
  const users = new Map<string, TestRecipient>();
  let emailQueue: Queue;
  let db: Client;

  const newUser = (language: UserLanguage = 'en') => {
    const user = { id: randomUUID(), email: `person-${randomUUID()}@example.test`, language };
    users.set(user.id, user);
    return user;
  };
  const tagCode = () => randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
  const publish = (event: DomainEvent) => setup.publish(event);
  const peopleChanged = (code: string, version: number, ownerUserId: string, coOwnerUserIds: string[]) => setup.itemPeopleChanged(code, version, ownerUserId, coOwnerUserIds);
  const finderWrote = (itemCode: string, ownerUserId: string) =>
    eventOf('messaging.message.created.v1', { itemCode, conversationId: randomUUID(), messageId: Math.floor(Math.random() * 1e9), author: 'finder', ownerUserId });
  const settled = async () => {
    await setup.consumerSettled('messaging.message.created.v1', 'notifications__new-message');
    await setup.jobsSettled('email');
    await setup.jobsSettled('push');
  };
  const rpc = setup.rpc.bind(setup);
  const withPush = (user: { id: string }) => setup.subscribeToPush(push, user.id);
  // Languages of accounts as identity answers language-of-email: by address, null for none.
  const accountLanguages = new Map<string, UserLanguage>();

  beforeAll(async () => {
    await mail.start();
    await push.start();
    await setup.setUp({ SMTP_URL: mail.url, PUSH_SERVICE_HOSTS: push.host, NODE_EXTRA_CA_CERTS: push.caPath });
    const { nc } = setup;
    setup.answerUsers((userId) => users.get(userId));
    nc.subscribe(`${namespace}.identity.rpc.language-of-email`, {
      callback: (_error, msg) => void msg.respond(JSON.stringify({ language: accountLanguages.get(msg.json<{ email: string }>().email) ?? null })),
    });
    // A messaging of before `replyAddressFor`: its unread check answers no token, so the worker asks for one.
    nc.subscribe(`${namespace}.messaging.rpc.owner-reply-address`, { callback: (_error, msg) => void msg.respond(JSON.stringify({ token: 'ownerreplytokenabcdefghijk' })) });
    nc.subscribe(`${namespace}.messaging.rpc.unread-since`, {
      callback: (_error, msg) => void msg.respond(JSON.stringify({ latestUnreadMessageId: msg.json<{ messageId: number }>().messageId })),
    });
    await setup.start({ NOTIFICATIONS_ROLE: 'all' });
    await setup.consumerExists('messaging.message.created.v1', 'notifications__new-message');
    await setup.consumerExists('items.item.people-changed.v1', 'notifications__item-people');
    await setup.consumerExists('items.invitation.created.v1', 'notifications__invitation-mail');
    emailQueue = setup.queue('email');
    db = setup.db;
  });

  afterAll(async () => {
    const exitCodes = await setup.tearDown();
    for (const service of setup.processes) {
      for (const user of users.values()) expect(service.logs).not.toContain(user.email);
      expect(service.logs).not.toContain('invitee-');
    }
    await push.stop();
    await mail.stop();
    expect(exitCodes).toEqual(exitCodes.map(() => 0));
  });

  it('answers both settings on for a person who never chose, and keeps each change alongside the other', async () => {
    const code = tagCode();
    const user = newUser();
    expect(await rpc('notifications.rpc.get-item-settings', { code, userId: user.id })).toEqual({ email: true, push: true });
    expect(await rpc('notifications.rpc.set-item-settings', { code, userId: user.id, push: false })).toEqual({ email: true, push: false });
    expect(await rpc('notifications.rpc.set-item-settings', { code, userId: user.id, email: false })).toEqual({ email: false, push: false });
    expect(await rpc('notifications.rpc.get-item-settings', { code, userId: user.id })).toEqual({ email: false, push: false });
    // Per item: the same person's other item is untouched.
    expect(await rpc('notifications.rpc.get-item-settings', { code: tagCode(), userId: user.id })).toEqual({ email: true, push: true });
  });

  it('e-mails and pushes a finder’s message to the owner and the co-owner, each their own mail', async () => {
    const [owner, coOwner] = [newUser('nl'), newUser('es')];
    const code = tagCode();
    await peopleChanged(code, 3, owner.id, [coOwner.id]);
    const [ownerPhone, coOwnerPhone] = [await withPush(owner), await withPush(coOwner)];
    const event = finderWrote(code, owner.id);
    await publish(event);
    const [toOwner] = await mail.waitForMails(owner.email);
    const [toCoOwner] = await mail.waitForMails(coOwner.email);
    expect(toOwner.messageId).toBe(`<email_${event.id}_${owner.id}@homing>`);
    expect(toCoOwner.messageId).toBe(`<email_${event.id}_${coOwner.id}@homing>`);
    // Each in their own language.
    expect(toOwner.subject).not.toBe(toCoOwner.subject);
    await push.waitForPushes(ownerPhone, 1);
    await push.waitForPushes(coOwnerPhone, 1);
  });

  it('e-mails only the owner once the co-owner turned e-mail off, and pushes nobody who turned push off', async () => {
    const [owner, coOwner] = [newUser(), newUser()];
    const code = tagCode();
    await peopleChanged(code, 5, owner.id, [coOwner.id]);
    const [ownerPhone, coOwnerPhone] = [await withPush(owner), await withPush(coOwner)];
    await rpc('notifications.rpc.set-item-settings', { code, userId: coOwner.id, email: false });
    const first = finderWrote(code, owner.id);
    await publish(first);
    await mail.waitForMails(owner.email);
    await push.waitForPushes(coOwnerPhone, 1);
    await settled();
    expect(mail.mailsTo(coOwner.email)).toHaveLength(0);
    expect(await emailQueue.getJob(`email_${first.id}_${coOwner.id}`)).toBeUndefined();

    // Now push off too (and the owner's push off): nothing at all to the co-owner, the owner's e-mail only.
    await rpc('notifications.rpc.set-item-settings', { code, userId: coOwner.id, push: false });
    await rpc('notifications.rpc.set-item-settings', { code, userId: owner.id, push: false });
    await publish(finderWrote(code, owner.id));
    await mail.waitForMails(owner.email, 2);
    await settled();
    expect(mail.mailsTo(coOwner.email)).toHaveLength(0);
    expect(push.pushesTo(coOwnerPhone)).toHaveLength(1);
    expect(push.pushesTo(ownerPhone)).toHaveLength(1);
  });

  it('tells a removed co-owner nothing, even when an older event that named them comes late', async () => {
    const [owner, coOwner] = [newUser(), newUser()];
    const code = tagCode();
    await peopleChanged(code, 7, owner.id, [coOwner.id]);
    await rpc('notifications.rpc.set-item-settings', { code, userId: coOwner.id, push: false });
    const coOwnerPhone = await withPush(coOwner);
    await peopleChanged(code, 8, owner.id, []);
    await peopleChanged(code, 6, owner.id, [coOwner.id]);
    // Their settings went with them: were they added again, they would start with both on.
    expect(await rpc('notifications.rpc.get-item-settings', { code, userId: coOwner.id })).toEqual({ email: true, push: true });
    await publish(finderWrote(code, owner.id));
    await mail.waitForMails(owner.email);
    await settled();
    expect(mail.mailsTo(coOwner.email)).toHaveLength(0);
    expect(push.pushesTo(coOwnerPhone)).toHaveLength(0);
  });

  it('tells the owner the event names of an item items has said nothing of, and nobody of a deleted item', async () => {
    const owner = newUser();
    const code = tagCode();
    await publish(finderWrote(code, owner.id));
    await mail.waitForMails(owner.email);

    const deletedCode = tagCode();
    await peopleChanged(deletedCode, 2, owner.id, []);
    await rpc('notifications.rpc.set-item-settings', { code: deletedCode, userId: owner.id, push: false });
    await publish(itemEventOf('items.item.deleted.v1', { code: deletedCode }, deletedCode, 3));
    await setup.consumerSettled('items.item.deleted.v1', 'notifications__item-people');
    // A late event of before the deletion brings nobody back.
    await peopleChanged(deletedCode, 1, owner.id, []);
    const { rows } = await db.query(`SELECT owner_user_id, co_owner_user_ids, version FROM "${schema}".item_people WHERE item_code = $1`, [deletedCode]);
    expect(rows).toEqual([{ owner_user_id: null, co_owner_user_ids: [], version: '3' }]);
    const settings = await db.query(`SELECT count(*)::int AS count FROM "${schema}".item_notification_settings WHERE item_code = $1`, [deletedCode]);
    expect(settings.rows).toEqual([{ count: 0 }]);
    await publish(finderWrote(deletedCode, owner.id));
    await settled();
    expect(mail.mailsTo(owner.email)).toHaveLength(1);
  });

  it.each([
    ['an account’s, in its language', 'co-owner', 'es', 'Te han invitado a compartir un objeto en Homing'],
    ['no account’s, in the inviter’s language', 'transfer', null, 'Je bent uitgenodigd om een item over te nemen op Homing'],
  ] as const)('e-mails an invitation to an address of %s, with its link, and keeps neither address nor token once sent', async (_case, kind, inviteeLanguage, subject) => {
    const inviter = newUser('nl');
    const email = `invitee-${randomUUID()}@example.test`;
    if (inviteeLanguage) accountLanguages.set(email, inviteeLanguage);
    const invitationId = randomUUID();
    const token = randomUUID().replace(/-/g, '').slice(0, 22);
    const event = eventOf('items.invitation.created.v1', { invitationId, code: tagCode(), kind, email, token, inviterUserId: inviter.id });
    await publish(event);
    const [received] = await mail.waitForMails(email);
    expect(received.subject).toBe(subject);
    expect(received.messageId).toBe(`<email_${event.id}_${invitationId}@homing>`);
    expect(linkIn(received, `${publicUrl}/invite/`)).toBe(`${publicUrl}/invite/${token}`);
    expect(received.text).toContain('7');
    expect(received.text).not.toContain(inviter.email);
    expect(mail.mailsTo(inviter.email)).toHaveLength(0);
    await expectEventually(async () => expect((await emailQueue.getJob(`email_${event.id}_${invitationId}`))?.data).toEqual({ invitationId }));
  });
});
