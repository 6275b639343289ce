import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';
import { STREAMS, type DomainEvent } from '@homing/contracts';
import { deleteNamespaceStreams, dropSchemas, ensureDatabase, expectEventually, freePort, isolatedName, runServiceCommand, ServiceProcess, SmtpSink, testInfra } from '@homing/testing';

// RELIABILITY F11 in small: the consumer and the worker as separate processes (NOTIFICATIONS_ROLE); the worker is
// SIGKILLed while its SMTP hand-over waits for the server's answer, and another worker finishes the job after the stall
// window: the mail arrives once.
describe('an e-mail worker killed mid-job', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const schema = `notifications_${namespace}`;
  const sink = new SmtpSink();
  const user = { id: randomUUID(), email: `killed-${randomUUID()}@example.test`, language: 'en' as const };
  const processes: ServiceProcess[] = [];
  let nc: NatsConnection;
  let db: Client;
  let env: NodeJS.ProcessEnv;

  const start = async (role: 'consumer' | 'worker') => {
    const service = new ServiceProcess('notifications', await freePort(), { ...env, NOTIFICATIONS_ROLE: role });
    processes.push(service);
    await service.start();
    return service;
  };

  beforeAll(async () => {
    await sink.start();
    await ensureDatabase(infra.databaseUrl);
    nc = await connect({ servers: infra.natsUrl });
    nc.subscribe(`${namespace}.identity.rpc.get-user`, { callback: (_error, msg) => void msg.respond(JSON.stringify(user)) });
    env = {
      NODE_ENV: 'test',
      DATABASE_URL: infra.databaseUrl,
      DATABASE_SCHEMA: schema,
      NATS_URL: infra.natsUrl,
      NATS_NAMESPACE: namespace,
      REDIS_URL: infra.redisUrl,
      SMTP_URL: sink.url,
      PUBLIC_URL: 'https://homing.test',
    };
    await runServiceCommand('notifications', ['migrate'], env);
    db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await Promise.all(processes.map((service) => service.stop()));
    sink.release();
    await sink.stop();
    await deleteNamespaceStreams(nc, namespace);
    await nc.drain();
    await db.end();
    await dropSchemas(infra.databaseUrl, [schema]);
  });

  it('is finished by another worker after the stall window, and sent once', async () => {
    await start('consumer');
    const doomed = await start('worker');
    const jsm = await jetstreamManager(nc);
    await expectEventually(() => jsm.consumers.info(`${namespace.toUpperCase()}_${STREAMS.secrets.name}`, 'notifications__login-code-mail'));

    sink.holdNext(1);
    const event = {
      id: randomUUID(),
      subject: 'identity.login-code.requested.v1',
      occurredAt: new Date().toISOString(),
      correlationId: 'worker-killed-test',
      causationId: null,
      producer: 'identity',
      aggregateId: user.id,
      version: 1,
      data: { userId: user.id, code: 'KILL2345' },
    } satisfies DomainEvent<'identity.login-code.requested.v1'>;
    await jetstream(nc).publish(`${namespace}.${event.subject}`, JSON.stringify(event), { msgID: event.id });
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
      const { rows } = await db.query(`SELECT status, attempts FROM "${schema}".deliveries WHERE job_id = $1`, [`email_${event.id}_${user.id}`]);
      expect(rows).toEqual([{ status: 'sent', attempts: 2 }]);
    });
    // The killed worker's lock expires after 15 s; a stall check marks the job and the next one, 15 s later, moves it
    // back to wait: at most lock + two stall intervals (45 s) from the kill.
    expect(recoveredInMs).toBeLessThan(55_000);
    expect(sink.mailsTo(user.email)).toHaveLength(1);
  }, 120_000);
});
