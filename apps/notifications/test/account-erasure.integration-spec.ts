import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { expectEventually, type ServiceProcess, SmtpSink } from '@homing/testing';
import { eventOf, NotificationsTestSetup } from './notifications-test-setup';

// Account erasure (identity's `DELETE /user`), against real NATS, Redis, PostgreSQL and SMTP: the farewell e-mail goes
// to the address its secrets-stream event carries, without asking identity (which has erased the user), and keeps no
// address once done; the erasure event deletes the user's push subscriptions and delivery records, once.
describe('account erasure', () => {
  const sink = new SmtpSink();
  const publicUrl = 'https://homing.test';
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: publicUrl, NOTIFICATIONS_ROLE: 'all' });
  const { schema, namespace } = setup;
  const addresses = new Set<string>();
  let identityAsked = 0;
  let service: ServiceProcess;
  let redis: IORedis;
  const queue = () => setup.queue('email');
  const farewellDurable = 'notifications__farewell-mail';
  const erasureDurable = 'notifications__user-deleted';

  const address = () => {
    const email = `gone-${randomUUID()}@example.test`;
    addresses.add(email);
    return email;
  };
  /** Every value this test's BullMQ keys hold in Redis (job hashes, lists, sets, event streams), as one string. */
  const everythingInRedis = async () => {
    const values: string[] = [];
    for (const key of await redis.keys(`homing_${namespace}:*`)) {
      const type = await redis.type(key);
      if (type === 'hash') values.push(key, ...Object.values(await redis.hgetall(key)));
      else if (type === 'string') values.push(key, (await redis.get(key)) ?? '');
      else if (type === 'list') values.push(key, ...(await redis.lrange(key, 0, -1)));
      else if (type === 'set') values.push(key, ...(await redis.smembers(key)));
      else if (type === 'zset') values.push(key, ...(await redis.zrange(key, 0, -1)));
      else if (type === 'stream') values.push(key, JSON.stringify(await redis.xrange(key, '-', '+')));
    }
    return values.join('\n');
  };
  const finishedJob = async (jobId: string, state: 'completed' | 'failed') =>
    expectEventually(async () => {
      // The state first, then the job: a job read before it finished would not hold what it keeps.
      expect(await queue().getJobState(jobId)).toBe(state);
      return (await queue().getJob(jobId))!;
    });
  const deliveryOf = async (jobId: string) => (await setup.db.query(`SELECT * FROM "${schema}".deliveries WHERE job_id = $1`, [jobId])).rows[0] as Record<string, unknown> | undefined;

  beforeAll(async () => {
    await sink.start();
    await setup.setUp({ SMTP_URL: sink.url });
    redis = new IORedis(setup.infra.redisUrl);
    // Identity has erased the user: it must not be asked (it would not know them).
    setup.answerUsers(() => {
      identityAsked += 1;
      return undefined;
    });
    service = await setup.start({}, { timeoutMs: 60_000 });
    // The farewell's consumer starts at new events: publish only once it exists.
    await setup.consumerExists('identity.user.farewell.v1', farewellDurable);
    await setup.consumerExists('identity.user.deleted.v1', erasureDurable);
  });

  afterAll(async () => {
    redis?.disconnect();
    const exitCodes = await setup.tearDown();
    if (service) {
      for (const value of addresses) expect(service.logs).not.toContain(value);
    }
    await sink.stop();
    expect(exitCodes).toEqual([0]);
  });

  it('e-mails the farewell once, to the address and in the language of the event, and keeps no address once sent', async () => {
    const email = address();
    const event = eventOf('identity.user.farewell.v1', { email, language: 'es' });
    await setup.publish(event);
    const [mail] = await sink.waitForMails(email);
    expect(mail.subject).toBe('Tu cuenta de Homing se ha eliminado');
    expect(mail.text).toContain('Este es el último correo que te envía Homing');
    const jobId = `email_${event.id}_farewell`;
    expect(mail.messageId).toBe(`<${jobId}@homing>`);

    // The same event again, stored anew (another message id): the same job, refused by the queue, so nothing is sent.
    await setup.publish(event, randomUUID());
    await setup.consumerSettled(event.subject, farewellDurable);
    const job = await finishedJob(jobId, 'completed');
    await setup.jobsSettled('email');
    expect(sink.mailsTo(email)).toHaveLength(1);

    // The address left Redis with the job's data; the delivery record never had it.
    expect(job.data).toEqual({ farewell: true });
    expect(await everythingInRedis()).not.toContain(email);
    await expectEventually(async () => expect(await deliveryOf(jobId)).toMatchObject({ status: 'sent', kind: 'account-deleted', attempts: 1 }));
    expect(JSON.stringify(await deliveryOf(jobId))).not.toContain(email);
    expect(identityAsked).toBe(0);
  });

  it('keeps no address of a farewell the mail server refuses for good', async () => {
    const email = address();
    sink.answerNext(550);
    const event = eventOf('identity.user.farewell.v1', { email, language: 'nl' });
    await setup.publish(event);
    const jobId = `email_${event.id}_farewell`;
    const job = await finishedJob(jobId, 'failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.data).toEqual({ farewell: true });
    expect(await everythingInRedis()).not.toContain(email);
    expect(await deliveryOf(jobId)).toMatchObject({ status: 'failed', kind: 'account-deleted' });
    expect(sink.mailsTo(email)).toHaveLength(0);
  });

  it('deletes a deleted user’s push subscriptions and delivery records, leaves everyone else’s, and applies the event once', async () => {
    const erased = randomUUID();
    const other = randomUUID();
    const conversation = randomUUID();
    const subscribe = async (column: 'user_id' | 'conversation_id', id: string) =>
      (
        await setup.db.query<{ id: string }>(
          `INSERT INTO "${schema}".push_subscriptions (${column}, endpoint, p256dh, auth) VALUES ($1, $2, 'p256dh', 'auth') RETURNING id`,
          [id, `https://push.example.test/${randomUUID()}`],
        )
      ).rows[0].id;
    const deliver = async (jobId: string, channel: 'email' | 'push', kind: string) => {
      await setup.db.query(`INSERT INTO "${schema}".deliveries (job_id, channel, kind, status, sent_at) VALUES ($1, $2, $3, 'sent', now())`, [jobId, channel, kind]);
      return jobId;
    };
    const erasedSubscriptions = [await subscribe('user_id', erased), await subscribe('user_id', erased)];
    const otherSubscription = await subscribe('user_id', other);
    const finderSubscription = await subscribe('conversation_id', conversation);
    const erasedDeliveries = [
      await deliver(`email_${randomUUID()}_${erased}`, 'email', 'login-code'),
      await deliver(`email_${randomUUID()}_${erased}`, 'email', 'new-message'),
      await deliver(`push_${randomUUID()}_${erasedSubscriptions[0]}`, 'push', 'new-message'),
    ];
    const keptDeliveries = [
      await deliver(`email_${randomUUID()}_${other}`, 'email', 'login-code'),
      await deliver(`push_${randomUUID()}_${otherSubscription}`, 'push', 'new-message'),
      await deliver(`email_${randomUUID()}_${conversation}`, 'email', 'owner-reply'),
      await deliver(`push_${randomUUID()}_${finderSubscription}`, 'push', 'new-message'),
      // A farewell's record names no user: nothing of it matches anyone's id.
      await deliver(`email_${randomUUID()}_farewell`, 'email', 'account-deleted'),
    ];
    const subscriptionIds = async () => (await setup.db.query<{ id: string }>(`SELECT id FROM "${schema}".push_subscriptions`)).rows.map(({ id }) => id);
    const deliveryIds = async () => (await setup.db.query<{ job_id: string }>(`SELECT job_id FROM "${schema}".deliveries`)).rows.map(({ job_id }) => job_id);

    const event = eventOf('identity.user.deleted.v1', { userId: erased });
    await setup.publish(event);
    await setup.consumerSettled(event.subject, erasureDurable);
    for (const id of erasedSubscriptions) expect(await subscriptionIds()).not.toContain(id);
    expect(await subscriptionIds()).toEqual(expect.arrayContaining([otherSubscription, finderSubscription]));
    for (const jobId of erasedDeliveries) expect(await deliveryIds()).not.toContain(jobId);
    expect(await deliveryIds()).toEqual(expect.arrayContaining(keptDeliveries));

    // A record written for the user after the erasure (a job that was already running), then the same event again,
    // stored anew: the ledger applies an event once, so the second delivery changes nothing.
    const late = await deliver(`email_${randomUUID()}_${erased}`, 'email', 'new-message');
    const before = { subscriptions: (await subscriptionIds()).sort(), deliveries: (await deliveryIds()).sort() };
    const again = await setup.publish(event, randomUUID());
    await expectEventually(async () => {
      const info = await setup.jsm.consumers.info(setup.streamOf(event.subject), erasureDurable);
      expect(info.delivered.stream_seq).toBeGreaterThanOrEqual(again.seq);
    });
    await setup.consumerSettled(event.subject, erasureDurable);
    expect({ subscriptions: (await subscriptionIds()).sort(), deliveries: (await deliveryIds()).sort() }).toEqual(before);
    expect(before.deliveries).toContain(late);
    const ledger = await setup.db.query(`SELECT 1 FROM "${schema}".processed_events WHERE consumer = $1 AND event_id = $2`, [erasureDurable, event.id]);
    expect(ledger.rowCount).toBe(1);
  });
});
