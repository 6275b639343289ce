import { expectEventually, freePort, type ServiceProcess } from '@homing/testing';
import { NotificationsTestSetup } from '../../apps/notifications/test/notifications-test-setup';

interface ReadyBody {
  error?: Record<string, { status: string; message?: string }>;
  details?: Record<string, { status: string; message?: string }>;
}

// BullMQ's queued notifications live only in Redis (ARCHITECTURE §9): whether Redis keeps them is part of readiness.
describe('notifications readiness and Redis durability', () => {
  const setup = new NotificationsTestSetup();
  const { infra } = setup;
  const start = (extraEnv: NodeJS.ProcessEnv) => setup.start(extraEnv, { timeoutMs: 20_000, until: 'live' });
  const ready = async (service: ServiceProcess) => {
    const response = await fetch(`http://127.0.0.1:${service.port}/health/ready`);
    return { status: response.status, body: (await response.json()) as ReadyBody };
  };

  beforeAll(() => setup.setUp());

  afterAll(() => setup.tearDown());

  it('starts and stays live with Redis unreachable, and is not ready', async () => {
    const notifications = await start({ REDIS_URL: `redis://127.0.0.1:${await freePort()}`, NODE_ENV: 'test' });
    const { status, body } = await ready(notifications);
    expect(status).toBe(503);
    expect(body.error?.redis?.status).toBe('down');
    expect((await fetch(`http://127.0.0.1:${notifications.port}/health/live`)).status).toBe(200);
    expect(await notifications.stop()).toBe(0);
  });

  it('in production, is not ready on a Redis without AOF and names the setting', async () => {
    // The machine's Redis runs with appendonly no (STACK.md).
    const notifications = await start({ REDIS_URL: infra.redisUrl, NODE_ENV: 'production' });
    const { status, body } = await expectEventually(async () => {
      const answer = await ready(notifications);
      // Every dependency answers: what keeps it out of rotation is the durability alone.
      expect(answer.body.details?.redis?.status).toBe('up');
      return answer;
    });
    expect(status).toBe(503);
    expect(body.error?.redis_durability?.message).toContain('appendonly is off');
    expect(notifications.logs).toContain('can lose queued notifications');
  });

  it('in development, is ready on the same Redis and warns once', async () => {
    const notifications = await start({ REDIS_URL: infra.redisUrl, NODE_ENV: 'development' });
    await expectEventually(async () => expect((await ready(notifications)).status).toBe(200));
    await expectEventually(() => expect(notifications.logs.match(/can lose queued notifications/g)).toHaveLength(1));
  });
});
