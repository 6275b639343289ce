import { runServiceCommand } from '@homing/testing';

const services = ['gateway', 'identity', 'items', 'messaging', 'notifications'];

describe('service start-up', () => {
  it.each(services)('%s lists every bad variable at once and exits 1', async (service) => {
    const failure = await runServiceCommand(service, [], { PORT: 'eighty', NATS_URL: 'http://nats', LOG_LEVEL: 'loud' }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toContain('exited 1');
    for (const variable of ['PORT', 'NATS_URL', 'LOG_LEVEL']) expect(message).toContain(`${variable}:`);
  });

  it('names the commands a service knows when given one it does not', async () => {
    const failure = (await runServiceCommand('items', ['frobnicate'], {}).catch((error: Error) => error)) as Error;
    expect(failure.message).toContain('exited 2');
    expect(failure.message).toMatch(/migrate[\s\S]*seed-tags|seed-tags[\s\S]*migrate/);
  });
});
