import { randomUUID } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Queue } from 'bullmq';
import type { Client } from 'pg';
import { RPC_ERROR_HEADER, formatTagCode, type DomainEvent, type RpcResponse, type UserLanguage } from '@homing/contracts';
import { expectEventually, linkIn, PushSink, SmtpSink } from '@homing/testing';
import { eventOf, NotificationsTestSetup, type TestRecipient } from '../../apps/notifications/test/notifications-test-setup';

const MINUTE = 60_000;

// Scan alerts: a lost item's tag was scanned (`items.item.scanned.v1`, ids only). The owner is pushed at once on every
// scan, and e-mailed at most once per item per 15 minutes; both ask items (`items.rpc.get-scan`, answered by a
// responder here) for the scan's time and place when they are sent, and send nothing once the scan is gone. One
// process in the role `all`; pushes go to a local push service whose certificate it trusts.
describe('notifications of scans of lost items', () => {
  const publicUrl = 'https://homing.test';
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: publicUrl });
  const { namespace, schema } = setup;
  const mail = new SmtpSink();
  const push = new PushSink();
  const users = new Map<string, TestRecipient>();
  const scans = new Map<string, RpcResponse<'items.rpc.get-scan'>>();
  const scansAsked: string[] = [];
  let emailQueue: Queue;
  let pushQueue: Queue;
  let db: Client;

  const newOwner = (language: UserLanguage) => {
    const user = { id: randomUUID(), email: `owner-${randomUUID()}@example.test`, language };
    users.set(user.id, user);
    return user;
  };
  const tagCode = () => randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
  /** A scan items recorded (and answers get-scan for), and the event it published. */
  const scanned = (code: string, ownerUserId: string, minutesAgo = 0, place: { city: string | null; country: string | null } = { city: 'Amsterdam', country: 'NL' }) => {
    const scanId = randomUUID();
    const scannedAt = new Date(Date.now() - minutesAgo * MINUTE);
    scans.set(scanId, { code, scannedAt: scannedAt.toISOString(), ...place, deviceKind: 'phone' });
    return eventOf('items.item.scanned.v1', { code, ownerUserId, scanId, scannedAt: scannedAt.toISOString() }, scannedAt);
  };
  const publish = (event: DomainEvent, msgId?: string) => setup.publish(event, msgId);
  const settled = async () => {
    await setup.consumerSettled('items.item.scanned.v1', 'notifications__scan-alert');
    await setup.jobsSettled('email');
    await setup.jobsSettled('push');
  };
  const registerPush = async (userId: string, subscription: unknown) => {
    const reply = await setup.nc.request(`${namespace}.notifications.rpc.register-push`, JSON.stringify({ subscriber: { userId }, subscription }), { timeout: 5000 });
    expect(reply.headers?.get(RPC_ERROR_HEADER)).toBeFalsy();
  };
  const deliveryOf = async (jobId: string) => (await db.query(`SELECT kind, status FROM "${schema}".deliveries WHERE job_id = $1`, [jobId])).rows[0];

  beforeAll(async () => {
    await mail.start();
    await push.start();
    await setup.setUp({ SMTP_URL: mail.url, PUSH_SERVICE_HOSTS: push.host, NODE_EXTRA_CA_CERTS: push.caPath });
    setup.answerUsers((userId) => users.get(userId));
    // Items as it answers get-scan: the scan, or 404 once the scan or its item is gone.
    setup.nc.subscribe(`${namespace}.items.rpc.get-scan`, {
      callback: (_error, msg) => {
        const { scanId } = msg.json<{ scanId: string }>();
        scansAsked.push(scanId);
        const scan = scans.get(scanId);
        if (scan) return void msg.respond(JSON.stringify(scan));
        const headers = natsHeaders();
        headers.set(RPC_ERROR_HEADER, '1');
        msg.respond(JSON.stringify({ status: 404, response_code: 'ITEM_NOT_FOUND', message: 'scan not found' }), { headers });
      },
    });
    await setup.start({ NOTIFICATIONS_ROLE: 'all' });
    await setup.consumerExists('items.item.scanned.v1', 'notifications__scan-alert');
    emailQueue = setup.queue('email');
    pushQueue = setup.queue('push');
    db = setup.db;
  });

  afterAll(async () => {
    const exitCodes = await setup.tearDown();
    for (const service of setup.processes) {
      for (const user of users.values()) expect(service.logs).not.toContain(user.email);
      expect(service.logs).not.toContain('Amsterdam');
    }
    await push.stop();
    await mail.stop();
    expect(exitCodes).toEqual(exitCodes.map(() => 0));
  });

  it.each([
    ['en', 'Your lost item’s tag was scanned', 'near Amsterdam, Netherlands'],
    ['nl', 'Het label van je kwijtgeraakte item is gescand', 'in de buurt van Amsterdam, Nederland'],
    ['es', 'Han escaneado la etiqueta de tu objeto perdido', 'cerca de Amsterdam, Países Bajos'],
  ] as const)('e-mails the owner in their language (%s) where their lost item was scanned, with a link to the item page', async (language, subject, near) => {
    const owner = newOwner(language);
    const code = tagCode();
    const event = scanned(code, owner.id);
    await publish(event);
    const [received] = await mail.waitForMails(owner.email);
    expect(received.subject).toBe(subject);
    expect(received.messageId).toBe(`<email_${event.id}_${owner.id}@homing>`);
    expect(received.text).toContain(near);
    // Through the login page, which sends the owner on to the item page (ec) once logged in.
    expect(linkIn(received, `${publicUrl}/login?ec=`)).toBe(`${publicUrl}/login?ec=${formatTagCode(code)}`);
    // No conversation: no reply address at the relay.
    expect(received.headers.find((header) => header.key === 'reply-to')).toBeUndefined();
    // The job carries ids only: the place was asked of items when the mail was made.
    const job = await emailQueue.getJob(`email_${event.id}_${owner.id}`);
    expect(JSON.stringify(job?.data)).not.toContain('Amsterdam');
  });

  it('e-mails one scan per item per 15 minutes, says so when the place is unknown, and nothing again for a replayed event', async () => {
    const owner = newOwner('en');
    const code = tagCode();
    const first = scanned(code, owner.id, 40, { city: null, country: null });
    await publish(first);
    const [opened] = await mail.waitForMails(owner.email);
    expect(opened.messageId).toBe(`<email_${first.id}_${owner.id}@homing>`);
    expect(opened.text).toContain('at a place we could not tell');

    // 10 and 14 minutes later: inside the window. Another item of the same owner has a window of its own.
    await publish(scanned(code, owner.id, 30));
    await publish(scanned(code, owner.id, 26));
    const other = scanned(tagCode(), owner.id);
    await publish(other);
    await mail.waitForMails(owner.email, 2);
    await settled();
    expect(mail.mailsTo(owner.email).map((received) => received.messageId)).toEqual([opened.messageId, `<email_${other.id}_${owner.id}@homing>`]);

    // 20 minutes after the first: a new window, a new e-mail; then the first event replayed (stored anew).
    const later = scanned(code, owner.id, 20);
    await publish(later);
    await mail.waitForMails(owner.email, 3);
    await publish(first, randomUUID());
    await settled();
    expect(mail.mailsTo(owner.email).map((received) => received.messageId)).toEqual([
      opened.messageId,
      `<email_${other.id}_${owner.id}@homing>`,
      `<email_${later.id}_${owner.id}@homing>`,
    ]);
  });

  it('pushes every scan to each of the owner’s subscriptions with its time and place, once, and records no message receipt', async () => {
    const owner = newOwner('nl');
    const [phone, laptop] = [push.subscribe(), push.subscribe()];
    await registerPush(owner.id, phone);
    await registerPush(owner.id, laptop);
    const code = tagCode();
    const first = scanned(code, owner.id);
    await publish(first);
    await publish(scanned(code, owner.id, 0, { city: null, country: 'BE' }));
    // Not coalesced like e-mail: two scans, two pushes to each subscription.
    const [pushed, second] = await push.waitForPushes(phone, 2);
    await push.waitForPushes(laptop, 2);
    const pushes = [pushed.payload, second.payload];
    expect(pushes).toContainEqual({ kind: 'scan-alert', url: `/item/${formatTagCode(code)}`, scanned_at: scans.get(first.data.scanId)?.scannedAt, city: 'Amsterdam', country: 'NL' });
    expect(pushes).toContainEqual(expect.objectContaining({ kind: 'scan-alert', city: null, country: 'BE' }));
    expect(pushed.ttl).toBe(24 * 60 * 60);

    await publish(first, randomUUID());
    await settled();
    expect(push.pushesTo(phone)).toHaveLength(2);
    expect(push.pushesTo(laptop)).toHaveLength(2);
    // A scan alert tells of no message: no delivered receipt in the outbox.
    const { rows } = await db.query(`SELECT count(*)::int AS count FROM "${schema}".outbox`);
    expect(rows).toEqual([{ count: 0 }]);
  });

  it('sends nothing, and finishes the jobs, once the scan or its item is gone', async () => {
    const owner = newOwner('es');
    const phone = push.subscribe();
    await registerPush(owner.id, phone);
    const event = scanned(tagCode(), owner.id);
    scans.delete(event.data.scanId);
    await publish(event);
    await settled();
    expect(scansAsked.filter((scanId) => scanId === event.data.scanId)).toHaveLength(2);
    expect(mail.mailsTo(owner.email)).toHaveLength(0);
    expect(push.pushesTo(phone)).toHaveLength(0);
    const emailJobId = `email_${event.id}_${owner.id}`;
    await expectEventually(async () => expect(await (await emailQueue.getJob(emailJobId))?.getState()).toBe('completed'));
    expect(await deliveryOf(emailJobId)).toEqual({ kind: 'scan-alert', status: 'skipped' });
    const [pushJob] = await pushQueue.getJobs(['completed']).then((jobs) => jobs.filter((job) => job.id?.startsWith(`push_${event.id}_`)));
    expect(await deliveryOf(pushJob.id ?? '')).toEqual({ kind: 'scan-alert', status: 'skipped' });
  });
});
