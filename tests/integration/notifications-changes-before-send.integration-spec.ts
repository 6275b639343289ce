import { randomUUID } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { RPC_ERROR_HEADER, type RpcResponse, type UserLanguage } from '@homing/contracts';
import { expectEventually, PushSink, SmtpSink } from '@homing/testing';
import { eventOf, itemEventOf, NotificationsTestSetup, type TestRecipient } from '../../apps/notifications/test/notifications-test-setup';

// An e-mail about an item's news is decided when its event comes, and a delayed one (the person has push) is sent
// minutes later: what it does when the item's people or their settings change in between, and what a transfer does
// to the item's scan-alert window.
describe('notifications: changes between an event and its e-mail', () => {
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: 'https://homing.test', OWNER_EMAIL_DELAY_MINUTES: '0.1' });
  const { namespace } = setup;
  const mail = new SmtpSink();
  const push = new PushSink();
  const users = new Map<string, TestRecipient>();
  const scans = new Map<string, RpcResponse<'items.rpc.get-scan'>>();

  const newUser = (language: UserLanguage = 'en') => {
    const user = { id: randomUUID(), email: `person-${randomUUID()}@example.test`, language };
    users.set(user.id, user);
    return user;
  };
  const tagCode = () => randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
  const peopleChanged = (code: string, version: number, ownerUserId: string, coOwnerUserIds: string[]) => setup.itemPeopleChanged(code, version, ownerUserId, coOwnerUserIds);
  const withPush = (user: { id: string }) => setup.subscribeToPush(push, user.id);
  const finderWrote = (itemCode: string, ownerUserId: string) =>
    eventOf('messaging.message.created.v1', { itemCode, conversationId: randomUUID(), messageId: Math.floor(Math.random() * 1e9), author: 'finder', ownerUserId });
  const jobState = async (jobId: string) => (await setup.queue('email').getJob(jobId))?.getState();

  beforeAll(async () => {
    await mail.start();
    await push.start();
    await setup.setUp({ SMTP_URL: mail.url, PUSH_SERVICE_HOSTS: push.host, NODE_EXTRA_CA_CERTS: push.caPath });
    const { nc } = setup;
    setup.answerUsers((userId) => users.get(userId));
    nc.subscribe(`${namespace}.messaging.rpc.unread-since`, {
      callback: (_error, msg) => void msg.respond(JSON.stringify({ latestUnreadMessageId: msg.json<{ messageId: number }>().messageId, replyToken: 'ownerreplytokenabcdefghijk' })),
    });
    nc.subscribe(`${namespace}.items.rpc.get-scan`, {
      callback: (_error, msg) => {
        const scan = scans.get(msg.json<{ scanId: string }>().scanId);
        if (scan) return void msg.respond(JSON.stringify(scan));
        const headers = natsHeaders();
        headers.set(RPC_ERROR_HEADER, '1');
        msg.respond(JSON.stringify({ status: 404, response_code: 'ITEM_NOT_FOUND', message: 'scan not found' }), { headers });
      },
    });
    await setup.start({ NOTIFICATIONS_ROLE: 'all' });
    await setup.consumerExists('messaging.message.created.v1', 'notifications__new-message');
    await setup.consumerExists('items.item.people-changed.v1', 'notifications__item-people');
    await setup.consumerExists('items.item.scanned.v1', 'notifications__scan-alert');
  });

  afterAll(async () => {
    await setup.tearDown();
    await push.stop();
    await mail.stop();
  });

  it('does not e-mail a co-owner removed from the item while their delayed new-message e-mail waited', async () => {
    const [owner, coOwner] = [newUser(), newUser()];
    const code = tagCode();
    await peopleChanged(code, 1, owner.id, [coOwner.id]);
    await withPush(coOwner);
    const event = finderWrote(code, owner.id);
    await setup.publish(event);
    await setup.consumerSettled('messaging.message.created.v1', 'notifications__new-message');
    const jobId = `email_${event.id}_${coOwner.id}`;
    expect(await jobState(jobId)).toBe('delayed');
    // The owner removes the co-owner before the delayed e-mail is due.
    await peopleChanged(code, 2, owner.id, []);
    await mail.waitForMails(owner.email);
    await expectEventually(async () => expect(await jobState(jobId)).toMatch(/completed|failed/), { timeoutMs: 30_000 });
    expect(mail.mailsTo(coOwner.email)).toHaveLength(0);
  });

  it('does not e-mail an owner who turned e-mail off for the item while the delayed new-message e-mail waited', async () => {
    const owner = newUser();
    const code = tagCode();
    await peopleChanged(code, 1, owner.id, []);
    await withPush(owner);
    const event = finderWrote(code, owner.id);
    await setup.publish(event);
    await setup.consumerSettled('messaging.message.created.v1', 'notifications__new-message');
    const jobId = `email_${event.id}_${owner.id}`;
    expect(await jobState(jobId)).toBe('delayed');
    expect(await setup.rpc('notifications.rpc.set-item-settings', { code, userId: owner.id, email: false })).toEqual({ email: false, push: true });
    await expectEventually(async () => expect(await jobState(jobId)).toMatch(/completed|failed/), { timeoutMs: 30_000 });
    expect(mail.mailsTo(owner.email)).toHaveLength(0);
  });

  it('e-mails the new owner of a transferred item about a scan after the transfer, even within 15 minutes of a scan of before', async () => {
    const [previous, next] = [newUser(), newUser()];
    const code = tagCode();
    await peopleChanged(code, 1, previous.id, []);
    const scanned = (ownerUserId: string, at: Date) => {
      const scanId = randomUUID();
      scans.set(scanId, { code, scannedAt: at.toISOString(), city: 'Utrecht', country: 'NL', deviceKind: 'phone' });
      return { scanId, event: eventOf('items.item.scanned.v1', { code, ownerUserId, scanId, scannedAt: at.toISOString() }, at) };
    };
    const before = scanned(previous.id, new Date(Date.now() - 5 * 60_000));
    await setup.publish(before.event);
    await mail.waitForMails(previous.email);
    // The item passes to `next`: items deletes the scans of before (privacy.md: the next owner sees none).
    await setup.publish(itemEventOf('items.item.transferred.v1', { code, previousOwnerUserId: previous.id, ownerUserId: next.id }, code, 2));
    await peopleChanged(code, 2, next.id, []);
    scans.delete(before.scanId);
    // The new owner marks it lost; a finder scans it.
    const after = scanned(next.id, new Date());
    await setup.publish(after.event);
    await setup.consumerSettled('items.item.scanned.v1', 'notifications__scan-alert');
    await setup.jobsSettled('email');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(mail.mailsTo(next.email)).toHaveLength(1);
  });
});
