import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runServiceCommand } from '@homing/testing';

const services = ['gateway', 'identity', 'items', 'messaging', 'notifications'];

describe('service start-up', () => {
  // The build's main.js runs bundle.js from the V8 code cache written beside it (tools/webpack/service-launcher.js),
  // which V8 takes only under the flags it was made with: the service's node-options, as the image and npm start run it.
  it.each([...services, 'mail-relay'])('%s compiles its bundle from the code cache its build wrote, under its node-options', (service) => {
    const dist = resolve(__dirname, '../../dist/apps', service);
    const run = spawnSync(process.execPath, [join(dist, 'main.js')], {
      env: { PATH: process.env.PATH, NODE_OPTIONS: readFileSync(join(dist, 'node-options'), 'utf8').trim(), LOG_LEVEL: 'debug', PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    // A bad PORT: the service says so and exits 1, after the launcher's line.
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stderr.split('\n')[0])).toMatchObject({ level: 20, service, context: 'CodeCache', msg: expect.stringMatching(/^bundle\.js compiled from its code cache and evaluated in \d+ ms$/) });
  });

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
