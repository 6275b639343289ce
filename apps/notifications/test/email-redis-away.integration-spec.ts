import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { STREAMS, type DomainEvent } from '@homing/contracts';
import { deleteNamespaceStreams, dropSchemas, ensureDatabase, expectEventually, freePort, isolatedName, runServiceCommand, ServiceProcess, SmtpSink, testInfra } from '@homing/testing';

// Redis (BullMQ) is a dependency of the event consumers like the database: an event that arrives while it is away
// waits, is never dead-lettered, and its e-mail goes out once Redis answers (ARCHITECTURE §3).
describe('e-mail notifications with Redis away', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const schema = `notifications_${namespace}`;
  const sink = new SmtpSink();
  const user = { id: randomUUID(), email: `away-${randomUUID()}@example.test`, language: 'en' as const };
  let redisPort: number;
  let redis: ChildProcess | undefined;
  let service: ServiceProcess;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    await sink.start();
    await ensureDatabase(infra.databaseUrl);
    nc = await connect({ servers: infra.natsUrl });
    jsm = await jetstreamManager(nc);
    nc.subscribe(`${namespace}.identity.rpc.get-user`, { callback: (_error, msg) => void msg.respond(JSON.stringify(user)) });
    redisPort = await freePort();
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: infra.databaseUrl,
      DATABASE_SCHEMA: schema,
      NATS_URL: infra.natsUrl,
      NATS_NAMESPACE: namespace,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      SMTP_URL: sink.url,
      PUBLIC_URL: 'https://homing.test',
    };
    await runServiceCommand('notifications', ['migrate'], env);
    service = new ServiceProcess('notifications', await freePort(), env);
    await service.start(20_000, { until: 'live' });
  });

  afterAll(async () => {
    await service?.stop();
    redis?.kill('SIGKILL');
    await sink.stop();
    await deleteNamespaceStreams(nc, namespace);
    await nc.drain();
    await dropSchemas(infra.databaseUrl, [schema]);
  });

  it('holds an event while Redis is away and mails it once Redis is back', async () => {
    const stream = `${namespace.toUpperCase()}_${STREAMS.secrets.name}`;
    await expectEventually(() => jsm.consumers.info(stream, 'notifications__login-code-mail'));
    const event = {
      id: randomUUID(),
      subject: 'identity.login-code.requested.v1',
      occurredAt: new Date().toISOString(),
      correlationId: 'redis-away-test',
      causationId: null,
      producer: 'identity',
      aggregateId: user.id,
      version: 1,
      data: { userId: user.id, code: 'AWAY2345' },
    } satisfies DomainEvent<'identity.login-code.requested.v1'>;
    await jetstream(nc).publish(`${namespace}.${event.subject}`, JSON.stringify(event), { msgID: event.id });
    await expectEventually(() => expect(service.logs).toContain(`${event.id} waits for a dependency`));

    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const [mail] = await sink.waitForMails(user.email, 1, 40_000);
    expect(mail.text).toContain('AWAY2345');
    expect(service.logs).not.toContain('dead-lettered');
    expect(sink.mailsTo(user.email)).toHaveLength(1);
  });
});
