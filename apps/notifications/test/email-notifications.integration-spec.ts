import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { RPC_ERROR_HEADER, STREAMS, type DomainEvent, type EventSubject, type UserLanguage } from '@homing/contracts';
import {
  deleteNamespaceStreams,
  dropSchemas,
  ensureDatabase,
  expectEventually,
  freePort,
  isolatedName,
  linkIn,
  runServiceCommand,
  ServiceProcess,
  SmtpSink,
  testInfra,
} from '@homing/testing';

// The notifications service as its own process (consumers and worker), against real NATS, Redis, PostgreSQL and a
// real SMTP server: events on the stream become e-mails, once each (RELIABILITY F12, F14 in small). Identity's
// `get-user` is answered by a responder in this test's namespace; the e-2-e suite uses the real identity.
describe('e-mail notifications', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const schema = `notifications_${namespace}`;
  const publicUrl = 'https://homing.test';
  const sink = new SmtpSink();
  const users = new Map<string, { id: string; email: string; language: UserLanguage }>();
  // Every secret and address this suite hands over; none may appear in the service's log.
  const secrets = new Set<string>();
  let service: ServiceProcess;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let db: Client;
  let redis: IORedis;
  let queue: Queue;

  const newUser = (language: UserLanguage) => {
    const user = { id: randomUUID(), email: `user-${randomUUID()}@example.test`, language };
    users.set(user.id, user);
    secrets.add(user.email);
    return user;
  };
  const secret = (value: string) => {
    secrets.add(value);
    return value;
  };

  function eventOf<S extends EventSubject>(subject: S, data: DomainEvent<S>['data']): DomainEvent<S> {
    return {
      id: randomUUID(),
      subject,
      occurredAt: new Date().toISOString(),
      correlationId: 'notifications-test',
      causationId: null,
      producer: subject.split('.')[0],
      aggregateId: 'aggregate',
      version: 1,
      data,
    } as DomainEvent<S>;
  }
  /** Publishes an event as an outbox relay would; `msgId` other than the event id makes JetStream store it again. */
  const publish = (event: DomainEvent, msgId = event.id) => js.publish(`${namespace}.${event.subject}`, JSON.stringify(event), { msgID: msgId });
  const streamOf = (subject: EventSubject) => `${namespace.toUpperCase()}_${STREAMS[subject.startsWith('identity.') ? 'secrets' : 'events'].name}`;
  const consumerSettled = (subject: EventSubject, durable: string) =>
    expectEventually(async () => {
      const info = await jsm.consumers.info(streamOf(subject), durable);
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    });
  const delivery = async (jobId: string) =>
    (await db.query(`SELECT status, attempts, sent_at FROM "${schema}".deliveries WHERE job_id = $1`, [jobId])).rows[0] as
      | { status: string; attempts: number; sent_at: Date | null }
      | undefined;
  const jobIdOf = (event: DomainEvent, userId: string) => `email_${event.id}_${userId}`;

  beforeAll(async () => {
    await sink.start();
    await ensureDatabase(infra.databaseUrl);
    nc = await connect({ servers: infra.natsUrl });
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    // identity.rpc.get-user as identity answers it: the user, or a 404 error reply.
    nc.subscribe(`${namespace}.identity.rpc.get-user`, {
      callback: (_error, msg) => {
        const { userId } = msg.json<{ userId: string }>();
        const user = users.get(userId);
        if (user) msg.respond(JSON.stringify(user));
        else {
          const headers = natsHeaders();
          headers.set(RPC_ERROR_HEADER, '1');
          msg.respond(JSON.stringify({ status: 404, response_code: 'NOT_FOUND', message: 'user not found' }), { headers });
        }
      },
    });
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'debug',
      DATABASE_URL: infra.databaseUrl,
      DATABASE_SCHEMA: schema,
      NATS_URL: infra.natsUrl,
      NATS_NAMESPACE: namespace,
      REDIS_URL: infra.redisUrl,
      SMTP_URL: sink.url,
      PUBLIC_URL: publicUrl,
      NOTIFICATIONS_ROLE: 'all',
    };
    await runServiceCommand('notifications', ['migrate'], env);
    service = new ServiceProcess('notifications', await freePort(), env);
    await service.start();
    // Side-effect consumers start at new events: publish only once they exist.
    await expectEventually(async () => {
      await jsm.consumers.info(streamOf('identity.login-code.requested.v1'), 'notifications__login-code-mail');
      await jsm.consumers.info(streamOf('identity.password-reset.requested.v1'), 'notifications__password-reset-mail');
      await jsm.consumers.info(streamOf('identity.user.registered.v1'), 'notifications__welcome-mail');
      await jsm.consumers.info(streamOf('items.item.claimed.v1'), 'notifications__tag-activated-mail');
    });
    db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
    redis = new IORedis(infra.redisUrl, { maxRetriesPerRequest: null });
    queue = new Queue('email', { connection: redis, prefix: `homing_${namespace}` });
  });

  afterAll(async () => {
    const exitCode = await service?.stop();
    if (service) {
      for (const value of secrets) expect(service.logs).not.toContain(value);
    }
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    redis?.disconnect();
    await sink.stop();
    await deleteNamespaceStreams(nc, namespace);
    await nc.drain();
    await db?.end();
    await dropSchemas(infra.databaseUrl, [schema]);
    expect(exitCode).toBe(0);
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
    await consumerSettled(event.subject, 'notifications__login-code-mail');
    await expectEventually(async () => expect(await (await queue.getJob(jobIdOf(event, user.id)))?.getState()).toBe('completed'));
    expect(sink.mailsTo(user.email)).toHaveLength(1);
    // The sink has the mail a moment before the worker records it as sent.
    await expectEventually(async () => expect(await delivery(jobIdOf(event, user.id))).toMatchObject({ status: 'sent', attempts: 1 }));
    // The completed job keeps the recipient's id only: the code left Redis when the mail was sent.
    expect((await queue.getJob(jobIdOf(event, user.id)))?.data).toEqual({ userId: user.id });
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
    await consumerSettled('identity.user.registered.v1', 'notifications__welcome-mail');
    expect(sink.mailsTo(silent.email)).toHaveLength(0);
  });

  it('tells the owner their tag is active, with a link to name the item', async () => {
    const owner = newUser('en');
    const event = eventOf('items.item.claimed.v1', { code: 'ABCD1234EFGH5678', ownerUserId: owner.id, claimedAt: new Date().toISOString() });
    await publish(event);
    const [mail] = await sink.waitForMails(owner.email);
    expect(mail.subject).toBe('Your Homing tag is active');
    expect(linkIn(mail, `${publicUrl}/item/`)).toBe(`${publicUrl}/item/ABCD-1234-EFGH-5678`);
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
      const found = await queue.getJob(jobId);
      expect(await found?.getState()).toBe('failed');
      return found!;
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
      const found = await queue.getJob(jobId);
      expect(await found?.getState()).toBe('failed');
      return found!;
    });
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toBe('recipient not found');
    expect(await delivery(jobId)).toBeUndefined();
  });
});
