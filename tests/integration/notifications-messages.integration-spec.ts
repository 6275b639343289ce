import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import type { Queue } from 'bullmq';
import type { Client } from 'pg';
import { RPC_ERROR_HEADER, type DomainEvent, type RpcErrorBody, type UserLanguage } from '@homing/contracts';
import { expectEventually, linkIn, PushSink, type ServiceProcess, SmtpSink } from '@homing/testing';
import { RETIRED_DURABLE_CONSUMERS } from '../../apps/notifications/src/persisted-names';
import { eventOf, NotificationsTestSetup, type TestRecipient } from '../../apps/notifications/test/notifications-test-setup';

const MINUTE = 60_000;

// Notices of new messages (ARCHITECTURE §9): a finder's message e-mails the owner, coalesced to one e-mail per
// conversation per 15 minutes (RELIABILITY A4), and pushes to the owner's subscriptions; an owner's reply e-mails the
// finder who left an address and pushes to the finder's. The consumer and the worker run as separate processes
// (NOTIFICATIONS_ROLE); identity and messaging are answered by responders here; pushes go to a local push service
// whose certificate the processes trust.
const OWNER_REPLY_TOKEN = 'ownerreplytokenabcdefghijk';
const FINDER_REPLY_TOKEN = 'finderreplytokenabcdefghij';

describe('notifications of new messages', () => {
  const publicUrl = 'https://homing.test';
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: publicUrl });
  const { namespace, schema, processes } = setup;
  const mail = new SmtpSink();
  const push = new PushSink();
  const users = new Map<string, TestRecipient>();
  const finders = new Map<string, string | null>();
  // Conversations a resume token was minted for (get-finder-contact with resumeLink), one entry per mint.
  const resumeTokensMinted: string[] = [];
  // Conversations their finder's contact was asked of (any get-finder-contact), one entry per ask.
  const finderContactAsks: string[] = [];
  let emailQueue: Queue;
  let pushQueue: Queue;
  let db: Client;
  let worker: ServiceProcess;
  let consumer: ServiceProcess;
  // Written before the consumer existed: must never be mailed.
  let before: { owner: { email: string }; event: DomainEvent<'messaging.message.created.v1'> };
  // Written after the consumers of the old code existed, before this code took over from them: told all the same.
  let left: { owner: { email: string }; event: DomainEvent<'messaging.message.created.v1'> };

  const newOwner = (language: UserLanguage) => {
    const user = { id: randomUUID(), email: `owner-${randomUUID()}@example.test`, language };
    users.set(user.id, user);
    return user;
  };
  const messageEvent = (data: Omit<DomainEvent<'messaging.message.created.v1'>['data'], 'messageId'>, occurredAt = new Date()) =>
    eventOf('messaging.message.created.v1', { ...data, messageId: Math.floor(Math.random() * 1e9) }, occurredAt);
  const publish = (event: DomainEvent, msgId?: string) => setup.publish(event, msgId);
  const stream = setup.streamOf('messaging.message.created.v1');
  const settled = (durable: string) => setup.consumerSettled('messaging.message.created.v1', durable);
  const emailJobsSettled = () => setup.jobsSettled('email');
  const pushJobsSettled = () => setup.jobsSettled('push');
  const start = (role: 'consumer' | 'worker') => setup.start({ NOTIFICATIONS_ROLE: role });
  /** notifications.rpc.register-push as the gateway calls it: the answer, or the error reply's body. */
  const registerPush = async (subscriber: { userId: string } | { conversationId: string }, subscription: unknown) => {
    const reply = await setup.nc.request(`${namespace}.notifications.rpc.register-push`, JSON.stringify({ subscriber, subscription }), { timeout: 5000 });
    return reply.headers?.get(RPC_ERROR_HEADER) ? { error: reply.json<RpcErrorBody>() } : { ok: reply.json() };
  };
  const subscriptionRows = async (endpoint: string) =>
    (await db.query(`SELECT user_id, conversation_id FROM "${schema}".push_subscriptions WHERE endpoint = $1`, [endpoint])).rows;
  const tagCode = () => randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();

  beforeAll(async () => {
    await mail.start();
    await push.start();
    // An owner with push gets the e-mail after this delay, if the message is still unread (messaging says it is, here).
    await setup.setUp({ SMTP_URL: mail.url, PUSH_SERVICE_HOSTS: push.host, NODE_EXTRA_CA_CERTS: push.caPath, OWNER_EMAIL_DELAY_MINUTES: '0.02' });
    const { nc, jsm } = setup;
    setup.answerUsers((userId) => users.get(userId));
    nc.subscribe(`${namespace}.messaging.rpc.get-finder-contact`, {
      callback: (_error, msg) => {
        const { conversationId, resumeLink, replyAddress } = msg.json<{ conversationId: string; resumeLink?: boolean; replyAddress?: boolean }>();
        finderContactAsks.push(conversationId);
        if (resumeLink) resumeTokensMinted.push(conversationId);
        void msg.respond(
          JSON.stringify({
            email: finders.get(conversationId) ?? null,
            ...(resumeLink ? { resumeToken: `resume-${conversationId}` } : {}),
            ...(replyAddress ? { replyToken: FINDER_REPLY_TOKEN } : {}),
          }),
        );
      },
    });
    // Each e-mail about a conversation carries a reply address at the relay, minted by messaging as it is sent: the
    // owner's comes with the unread check (one round trip a mail; notifications-people's fake answers the older way).
    nc.subscribe(`${namespace}.messaging.rpc.owner-reply-address`, {
      callback: (_error, msg) => void msg.respond(JSON.stringify({ token: 'notasked' })),
    });
    nc.subscribe(`${namespace}.messaging.rpc.unread-since`, {
      callback: (_error, msg) => {
        const { messageId, replyAddressFor } = msg.json<{ messageId: number; replyAddressFor?: string }>();
        msg.respond(JSON.stringify({ latestUnreadMessageId: messageId, ...(replyAddressFor ? { replyToken: OWNER_REPLY_TOKEN } : {}) }));
      },
    });
    worker = await start('worker');
    // A first consumer process declares the streams; its durable consumer is then removed, as if it never existed, and
    // an event is published before the next process creates it anew.
    const first = await start('consumer');
    await setup.consumerExists('messaging.message.created.v1', 'notifications__new-message');
    expect(await first.stop()).toBe(0);
    processes.splice(processes.indexOf(first), 1);
    await jsm.consumers.delete(stream, 'notifications__new-message');
    // Only the worker runs now, and it consumes no events: the durable consumer stays gone.
    await expect(jsm.consumers.info(stream, 'notifications__new-message')).rejects.toThrow(/consumer not found/);
    const owner = newOwner('en');
    before = { owner, event: messageEvent({ itemCode: tagCode(), conversationId: randomUUID(), author: 'finder', ownerUserId: owner.id }) };
    await publish(before.event);
    // The two consumers the old code ran for this subject (e-mail and push apart), as it created them, and a message
    // they had not handled yet when this code took over: the consumer that took them over starts where they had got to.
    for (const retired of Object.values(RETIRED_DURABLE_CONSUMERS)) {
      await jsm.consumers.add(stream, { durable_name: retired, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.New, filter_subject: `${namespace}.messaging.message.created.v1` });
    }
    const leftOwner = newOwner('en');
    left = { owner: leftOwner, event: messageEvent({ itemCode: tagCode(), conversationId: randomUUID(), author: 'finder', ownerUserId: leftOwner.id }) };
    await publish(left.event);
    consumer = await start('consumer');
    await setup.consumerExists('messaging.message.created.v1', 'notifications__new-message');
    emailQueue = setup.queue('email');
    pushQueue = setup.queue('push');
    db = setup.db;
  });

  afterAll(async () => {
    const exitCodes = await setup.tearDown();
    for (const service of processes) for (const user of users.values()) expect(service.logs).not.toContain(user.email);
    await push.stop();
    await mail.stop();
    expect(exitCodes).toEqual(exitCodes.map(() => 0));
  });

  it.each([
    ['en', 'Someone wrote about your lost item'],
    ['nl', 'Iemand schreef over je verloren spullen'],
    ['es', 'Alguien escribió sobre tu objeto perdido'],
  ] as const)('e-mails the owner in their language (%s) when a finder writes, with a link to the thread', async (language, subject) => {
    const owner = newOwner(language);
    const code = tagCode();
    await publish(messageEvent({ itemCode: code, conversationId: randomUUID(), author: 'finder', ownerUserId: owner.id }));
    const [received] = await mail.waitForMails(owner.email);
    expect(received.subject).toBe(subject);
    // Through the login page, which sends the owner on to the thread (c) once logged in.
    expect(linkIn(received, `${publicUrl}/login?c=`)).toBe(`${publicUrl}/login?c=${code.match(/.{4}/g)?.join('-')}`);
    // A reply to it goes through the relay into the conversation, as the owner's message.
    expect(received.headers.find((header) => header.key === 'reply-to')?.value).toBe(`c-${OWNER_REPLY_TOKEN}@relay.localhost`);
  });

  it('sends the owner one e-mail per conversation per 15 minutes, and nothing again for a replayed event (A4, F14)', async () => {
    const owner = newOwner('en');
    const conversationId = randomUUID();
    const itemCode = tagCode();
    const finderWrites = (minutesAgo: number) =>
      messageEvent({ itemCode, conversationId, author: 'finder', ownerUserId: owner.id }, new Date(Date.now() - minutesAgo * MINUTE));
    const first = finderWrites(40);
    await publish(first);
    const [opened] = await mail.waitForMails(owner.email);
    expect(opened.messageId).toBe(`<email_${first.id}_${owner.id}@homing>`);

    // 10 and 14 minutes later: inside the window. Another conversation of the same owner has a window of its own.
    await publish(finderWrites(30));
    await publish(finderWrites(26));
    const other = messageEvent({ itemCode, conversationId: randomUUID(), author: 'finder', ownerUserId: owner.id });
    await publish(other);
    await mail.waitForMails(owner.email, 2);
    await settled('notifications__new-message');
    await emailJobsSettled();
    expect(mail.mailsTo(owner.email).map((received) => received.messageId)).toEqual([opened.messageId, `<email_${other.id}_${owner.id}@homing>`]);

    // 20 minutes after the first: a new window, a new e-mail; then the first event replayed (stored anew).
    const later = finderWrites(20);
    await publish(later);
    await mail.waitForMails(owner.email, 3);
    await publish(first, randomUUID());
    await settled('notifications__new-message');
    await emailJobsSettled();
    expect(mail.mailsTo(owner.email).map((received) => received.messageId)).toEqual([
      opened.messageId,
      `<email_${other.id}_${owner.id}@homing>`,
      `<email_${later.id}_${owner.id}@homing>`,
    ]);
  });

  it('e-mails a finder who left an address when the owner replies, and nobody when they left none', async () => {
    const owner = newOwner('nl');
    const conversationId = randomUUID();
    const finderEmail = `finder-${randomUUID()}@example.test`;
    finders.set(conversationId, finderEmail);
    const code = tagCode();
    const reply = messageEvent({ itemCode: code, conversationId, author: 'owner', ownerUserId: owner.id });
    await publish(reply);
    const [received] = await mail.waitForMails(finderEmail);
    expect(received.subject).toBe('The owner answered your message');
    expect(received.messageId).toBe(`<email_${reply.id}_${conversationId}@homing>`);
    expect(linkIn(received, `${publicUrl}/found/`)).toBe(`${publicUrl}/found/${code.match(/.{4}/g)?.join('-')}?resume=resume-${conversationId}`);
    expect(received.headers.find((header) => header.key === 'reply-to')?.value).toBe(`c-${FINDER_REPLY_TOKEN}@relay.localhost`);
    // The mail's resume token was minted once, with the finder's address in the same round trip; a replayed job finds
    // the mail sent and mints none.
    expect(resumeTokensMinted.filter((id) => id === conversationId)).toHaveLength(1);
    expect(finderContactAsks.filter((id) => id === conversationId)).toHaveLength(1);
    // The same job again (as after a worker died between the send and the job's completion): found sent, not minted.
    const jobId = `email_${reply.id}_${conversationId}`;
    const sentJob = await emailQueue.getJob(jobId);
    await expectEventually(async () => expect(await sentJob?.getState()).toBe('completed'));
    await sentJob?.remove();
    await emailQueue.add('owner-reply', { conversationId, tagCode: code, messageId: reply.data.messageId }, { jobId });
    await expectEventually(async () => expect(await (await emailQueue.getJob(jobId))?.getState()).toBe('completed'));
    expect(resumeTokensMinted.filter((id) => id === conversationId)).toHaveLength(1);
    expect(mail.mailsTo(finderEmail)).toHaveLength(1);

    const silent = messageEvent({ itemCode: code, conversationId: randomUUID(), author: 'owner', ownerUserId: owner.id });
    await publish(silent);
    await expectEventually(async () => expect(await (await emailQueue.getJob(`email_${silent.id}_${silent.data.conversationId}`))?.getState()).toBe('completed'));
    // The owner is not told of their own reply.
    expect(mail.mailsTo(owner.email)).toHaveLength(0);
  });

  it('sends nothing for messages written before its consumer existed', async () => {
    await settled('notifications__new-message');
    await emailJobsSettled();
    expect(mail.mailsTo(before.owner.email)).toHaveLength(0);
    expect(await emailQueue.getJob(`email_${before.event.id}_${before.event.data.ownerUserId}`)).toBeUndefined();
  });

  it('tells of a message the consumers it took over had left, starting where they had got to', async () => {
    const info = await setup.jsm.consumers.info(stream, 'notifications__new-message');
    expect(info.config).toMatchObject({ deliver_policy: 'by_start_sequence' });
    const [received] = await mail.waitForMails(left.owner.email);
    expect(received.messageId).toBe(`<email_${left.event.id}_${left.event.data.ownerUserId}@homing>`);
  });

  it('pushes every finder message to each of the owner subscriptions, decrypted by the browser to where to look, once', async () => {
    const owner = newOwner('es');
    const [phone, laptop] = [push.subscribe(), push.subscribe()];
    expect(await registerPush({ userId: owner.id }, phone)).toEqual({ ok: {} });
    expect(await registerPush({ userId: owner.id }, laptop)).toEqual({ ok: {} });
    const code = tagCode();
    const conversationId = randomUUID();
    const first = messageEvent({ itemCode: code, conversationId, author: 'finder', ownerUserId: owner.id });
    await publish(first);
    await publish(messageEvent({ itemCode: code, conversationId, author: 'finder', ownerUserId: owner.id }));
    // Not coalesced like e-mail: two messages, two pushes to each subscription.
    const [pushed] = await push.waitForPushes(phone, 2);
    await push.waitForPushes(laptop, 2);
    expect(pushed.payload).toEqual({ kind: 'new-message', author: 'finder', url: `/found/${code.match(/.{4}/g)?.join('-')}` });
    expect(pushed.ttl).toBe(24 * 60 * 60);
    expect(pushed.text).not.toContain(owner.email);
    // One VAPID token for every push to the push service within the hour (VapidAuthorizations), not one a push.
    expect(new Set([...push.pushesTo(phone), ...push.pushesTo(laptop)].map((each) => each.vapid.token)).size).toBe(1);

    await publish(first, randomUUID());
    await settled('notifications__new-message');
    await pushJobsSettled();
    expect(push.pushesTo(phone)).toHaveLength(2);
    expect(push.pushesTo(laptop)).toHaveLength(2);
  });

  it('pushes the owner reply to the finder subscription of that conversation only', async () => {
    const owner = newOwner('en');
    const conversationId = randomUUID();
    const finder = push.subscribe();
    const otherFinder = push.subscribe();
    const ownerPhone = push.subscribe();
    await registerPush({ conversationId }, finder);
    await registerPush({ conversationId: randomUUID() }, otherFinder);
    await registerPush({ userId: owner.id }, ownerPhone);
    await publish(messageEvent({ itemCode: tagCode(), conversationId, author: 'owner', ownerUserId: owner.id }));
    const [pushed] = await push.waitForPushes(finder);
    expect(pushed.payload).toMatchObject({ kind: 'new-message', author: 'owner' });
    await settled('notifications__new-message');
    await pushJobsSettled();
    expect(push.pushesTo(otherFinder)).toHaveLength(0);
    expect(push.pushesTo(ownerPhone)).toHaveLength(0);
  });

  it('deletes a subscription its push service calls gone (410), and waits out a 429 as Retry-After says (F13)', async () => {
    const owner = newOwner('en');
    const [gone, busy] = [push.subscribe(), push.subscribe()];
    await registerPush({ userId: owner.id }, gone);
    await registerPush({ userId: owner.id }, busy);
    push.answerNext(gone, 410);
    // 6 s, three times the first back-off (2 s): a push after 6 s is Retry-After honoured, not a retry after a failure.
    push.answerNext(busy, 429, { headers: { 'Retry-After': '6' } });
    const event = messageEvent({ itemCode: tagCode(), conversationId: randomUUID(), author: 'finder', ownerUserId: owner.id });
    await publish(event);
    const [arrived] = await push.waitForPushes(busy);
    await expectEventually(async () => expect(await subscriptionRows(gone.endpoint)).toEqual([]));
    expect(push.refused.filter((refusal) => refusal.endpoint === gone.endpoint).map((refusal) => refusal.status)).toEqual([410]);
    const busyRefusals = push.refused.filter((refusal) => refusal.endpoint === busy.endpoint);
    expect(busyRefusals.map((refusal) => refusal.status)).toEqual([429]);
    expect(arrived.receivedAt - busyRefusals[0].at).toBeGreaterThanOrEqual(6000);
    await pushJobsSettled();
    // The wait was a delay, not a failed attempt: the job completed on its one attempt, run twice.
    const { rows } = await db.query(`SELECT id FROM "${schema}".push_subscriptions WHERE endpoint = $1`, [busy.endpoint]);
    const busyJob = await pushQueue.getJob(`push_${event.id}_${rows[0].id}`);
    expect({ state: await busyJob?.getState(), attemptsMade: busyJob?.attemptsMade, attemptsStarted: busyJob?.attemptsStarted }).toEqual({
      state: 'completed',
      attemptsMade: 1,
      attemptsStarted: 2,
    });
    expect(await pushQueue.getJobCounts('failed')).toMatchObject({ failed: 1 });
    expect(push.pushesTo(gone)).toHaveLength(0);
    expect(push.pushesTo(busy)).toHaveLength(1);
  });

  it('refuses subscriptions that are not https on an allowed push service, and keeps at most 16 per owner', async () => {
    const owner = newOwner('en');
    const keys = push.subscribe().keys;
    for (const endpoint of ['https://127.0.0.1/push/1', 'https://example.com/push/1', 'https://localhost/push/1']) {
      const answer = await registerPush({ userId: owner.id }, { endpoint, keys });
      expect({ endpoint, answer }).toEqual({ endpoint, answer: { error: expect.objectContaining({ status: 422, validation: { endpoint: 'invalid' } }) } });
    }
    const subscriptions = Array.from({ length: 17 }, () => push.subscribe());
    for (const subscription of subscriptions) await registerPush({ userId: owner.id }, subscription);
    // The oldest went; registering a known endpoint again keeps one row.
    expect(await subscriptionRows(subscriptions[0].endpoint)).toEqual([]);
    await registerPush({ userId: owner.id }, subscriptions[16]);
    expect(await subscriptionRows(subscriptions[16].endpoint)).toEqual([{ user_id: owner.id, conversation_id: null }]);
    const { rows } = await db.query(`SELECT count(*)::int AS count FROM "${schema}".push_subscriptions WHERE user_id = $1`, [owner.id]);
    expect(rows).toEqual([{ count: 16 }]);
  });

  it('runs the queue workers in the worker role only', async () => {
    // Two processes up (worker and consumer): one worker on each queue.
    expect(await emailQueue.getWorkersCount()).toBe(1);
    expect(await pushQueue.getWorkersCount()).toBe(1);
  });

  it('reports queue depths by state, and job durations and failures per channel, at /metrics (in every role)', async () => {
    await pushJobsSettled();
    const scrape = async (service: ServiceProcess) => (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
    const value = (text: string, name: string, labels: Record<string, string>) => {
      const line = text
        .split('\n')
        .find((candidate) => candidate.startsWith(`${name}{`) && Object.entries(labels).every(([key, label]) => candidate.includes(`${key}="${label}"`)));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    const fromWorker = await scrape(worker);
    const fromConsumer = await scrape(consumer);
    for (const text of [fromWorker, fromConsumer]) {
      // The 410 of the F13 test: one failed push job, kept.
      expect(value(text, 'homing_notification_queue_jobs', { queue: 'push', state: 'failed' })).toBe(1);
      expect(value(text, 'homing_notification_queue_jobs', { queue: 'email', state: 'waiting' })).toBe(0);
      expect(value(text, 'homing_notification_queue_jobs', { queue: 'push', state: 'delayed' })).toBe(0);
    }
    expect(value(fromWorker, 'homing_notification_job_duration_seconds_count', { channel: 'email', outcome: 'sent' })).toBeGreaterThanOrEqual(8);
    expect(value(fromWorker, 'homing_notification_job_duration_seconds_count', { channel: 'push', outcome: 'delayed' })).toBe(1);
    expect(value(fromWorker, 'homing_notification_job_failures_total', { channel: 'push', final: 'true' })).toBe(1);
  });
});
