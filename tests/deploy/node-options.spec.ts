import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEST_APPS, argumentsOf, parseDockerfile, read, root, stageNamed } from './support';

// Each service's Node options come from its webpack config (tools/webpack/nest-app.config.js), which writes them to
// dist/apps/<app>/node-options; the image's CMD puts them first in NODE_OPTIONS (deploy/docker/Dockerfile).

interface WebpackConfig {
  plugins: { constructor: { name: string }; line?: string }[];
}

const optionsOfApp = (app: string): string => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const config = require(join(root, 'apps', app, 'webpack.config.js')) as WebpackConfig;
  const plugin = config.plugins.find((candidate) => candidate.constructor.name === 'NodeOptionsFile');
  if (plugin?.line === undefined) throw new Error(`${app}'s webpack config writes no node-options`);
  return plugin.line.trim();
};

/** V8's heap limit of a Node started with these NODE_OPTIONS: it grows with the young generation's maximum. */
const heapLimitWith = (nodeOptions: string): number => {
  const run = spawnSync(process.execPath, ['-p', 'require("v8").getHeapStatistics().heap_size_limit'], { env: { PATH: process.env.PATH, NODE_OPTIONS: nodeOptions }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`node with NODE_OPTIONS=${nodeOptions} failed: ${run.stderr}`);
  return Number(run.stdout.trim());
};

describe("each service's Node options", () => {
  it.each(Object.keys(NEST_APPS))('%s: written by its build, and accepted by Node in NODE_OPTIONS', (app) => {
    const options = optionsOfApp(app);
    const run = spawnSync(process.execPath, ['-e', '0'], { env: { PATH: process.env.PATH, NODE_OPTIONS: options }, encoding: 'utf8' });
    expect({ app, options, status: run.status, stderr: run.stderr }).toEqual({ app, options, status: 0, stderr: '' });
  });

  describe("the image's CMD", () => {
    const cmd = stageNamed(parseDockerfile(read('deploy/docker/Dockerfile')), 'service')?.instructions.find((instruction) => instruction.getKeyword() === 'CMD');
    const [shell, flag, script] = JSON.parse(cmd ? argumentsOf(cmd) : '[]') as string[];
    let app: string;

    beforeAll(() => {
      // A built service as the image holds it: main.js prints the heap limit the options gave it.
      app = mkdtempSync(join(tmpdir(), 'homing-cmd-'));
      mkdirSync(join(app, 'dist/apps/demo'), { recursive: true });
      writeFileSync(join(app, 'dist/apps/demo/node-options'), '--max-semi-space-size=2\n');
      writeFileSync(join(app, 'dist/apps/demo/main.js'), 'console.log(require("v8").getHeapStatistics().heap_size_limit)');
    });
    afterAll(() => rmSync(app, { recursive: true, force: true }));

    const runCmd = (env: Record<string, string>) => {
      const run = spawnSync(shell, [flag, script], { cwd: app, env: { PATH: process.env.PATH, APP: 'demo', ...env }, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      return Number(run.stdout.trim());
    };

    it("starts the service with its node-options", () => {
      expect(heapLimitWith('--max-semi-space-size=2')).not.toBe(heapLimitWith('--max-semi-space-size=16'));
      expect(runCmd({})).toBe(heapLimitWith('--max-semi-space-size=2'));
    });

    it("lets an operator's NODE_OPTIONS on the container override them", () => {
      expect(runCmd({ NODE_OPTIONS: '--max-semi-space-size=16' })).toBe(heapLimitWith('--max-semi-space-size=16'));
    });
  });
});
