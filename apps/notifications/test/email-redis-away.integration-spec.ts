import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { expectEventually, freePort, ServiceProcess, SmtpSink } from '@homing/testing';
import { eventOf, NotificationsTestSetup } from './notifications-test-setup';

// Redis (BullMQ) is a dependency of the event consumers like the database: an event that arrives while it is away
// waits, is never dead-lettered, and its e-mail goes out once Redis answers (ARCHITECTURE §3).
describe('e-mail notifications with Redis away', () => {
  const setup = new NotificationsTestSetup({ NODE_ENV: 'test', PUBLIC_URL: 'https://homing.test' });
  const sink = new SmtpSink();
  const user = { id: randomUUID(), email: `away-${randomUUID()}@example.test`, language: 'en' as const };
  let redisPort: number;
  let redis: ChildProcess | undefined;
  let service: ServiceProcess;

  beforeAll(async () => {
    await sink.start();
    redisPort = await freePort();
    await setup.setUp({ SMTP_URL: sink.url, REDIS_URL: `redis://127.0.0.1:${redisPort}` });
    setup.answerUsers(() => user);
    service = await setup.start({}, { timeoutMs: 20_000, until: 'live' });
  });

  afterAll(async () => {
    await setup.tearDown();
    redis?.kill('SIGKILL');
    await sink.stop();
  });

  it('holds an event while Redis is away and mails it once Redis is back', async () => {
    await setup.consumerExists('identity.login-code.requested.v1', 'notifications__login-code-mail');
    const event = eventOf('identity.login-code.requested.v1', { userId: user.id, code: 'AWAY2345' });
    await setup.publish(event);
    await expectEventually(() => expect(service.logs).toContain(`${event.id} waits for a dependency`));

    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const [mail] = await sink.waitForMails(user.email, 1, 40_000);
    expect(mail.text).toContain('AWAY2345');
    expect(service.logs).not.toContain('dead-lettered');
    expect(sink.mailsTo(user.email)).toHaveLength(1);
  });
});
