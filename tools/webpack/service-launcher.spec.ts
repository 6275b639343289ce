import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// main.js of every built service (service-launcher.js), run on a small bundle of its own in a folder laid out as
// dist/apps/<app>: the cache the build writes, and each way a start may find it.

const FLAGS = '--max-semi-space-size=2';
// Exports `main`, as every service's bundle does; prints what it was started with, and a word that the test changes
// in place (same length: V8 alone would take the old cache for it).
const bundleSaying = (word: string) => `
  let evaluated = 0;
  function greet(who) { return who + ' ' + ${JSON.stringify(word)}; }
  evaluated += greet('x').length;
  exports.main = () => {
    console.log(JSON.stringify({ said: greet('bundle'), argv: process.argv.slice(2), dirname: __dirname, os: typeof require('node:os').cpus, evaluated }));
  };
`;

describe('main.js, the launcher of a built service', () => {
  let app: string;
  const run = (options: { flags?: string; env?: Record<string, string>; args?: string[] } = {}) => {
    const child = spawnSync(process.execPath, [join(app, 'main.js'), ...(options.args ?? [])], {
      env: { PATH: process.env.PATH, NODE_OPTIONS: options.flags ?? FLAGS, LOG_LEVEL: 'debug', ...options.env },
      encoding: 'utf8',
    });
    const lines = child.stderr.split('\n').filter(Boolean);
    const logged = lines.map((line) => JSON.parse(line) as { level: number; service: string; context: string; msg: string });
    return { status: child.status, output: child.stdout ? (JSON.parse(child.stdout) as Record<string, unknown>) : null, logged };
  };
  const writeCache = () => run({ env: { HOMING_WRITE_CODE_CACHE: '1' } });

  beforeEach(() => {
    app = join(mkdtempSync(join(tmpdir(), 'homing-launcher-')), 'demo');
    mkdirSync(app);
    copyFileSync(join(__dirname, 'service-launcher.js'), join(app, 'main.js'));
    writeFileSync(join(app, 'bundle.js'), bundleSaying('hello'));
  });
  afterEach(() => rmSync(join(app, '..'), { recursive: true, force: true }));

  it('writes the cache for the bundle at build time, without starting the service', () => {
    const written = writeCache();
    expect(written).toEqual({ status: 0, output: null, logged: [] });
    const cache = readFileSync(join(app, 'bundle.js.code-cache'));
    expect(cache.subarray(0, 32)).toEqual(createHash('sha256').update(readFileSync(join(app, 'bundle.js'))).digest());
    expect(cache.length).toBeGreaterThan(32);
  });

  it('starts the service from the cache under the flags it was written with, as a module of its folder', () => {
    writeCache();
    const started = run({ args: ['migrate', '--now', 'x'] });
    expect(started.status).toBe(0);
    expect(started.output).toEqual({ said: 'bundle hello', argv: ['migrate', '--now', 'x'], dirname: app, os: 'function', evaluated: 7 });
    expect(started.logged).toEqual([expect.objectContaining({ level: 20, service: 'demo', context: 'CodeCache', msg: expect.stringMatching(/^bundle\.js compiled from its code cache and evaluated in \d+ ms$/) })]);
  });

  it('compiles the bundle as usual, and says why, when V8 refuses the cache (other flags)', () => {
    writeCache();
    const started = run({ flags: `${FLAGS} --max-old-space-size=300` });
    expect(started.output).toMatchObject({ said: 'bundle hello' });
    expect(started.logged).toEqual([expect.objectContaining({ level: 30, msg: expect.stringContaining('without its code cache (V8 refused it') })]);
  });

  it('says so only at debug for a one-off command, which migration Jobs run without node-options', () => {
    writeCache();
    const migrate = (level: string) => run({ flags: '', args: ['migrate'], env: { LOG_LEVEL: level } });
    expect(migrate('info')).toMatchObject({ output: { argv: ['migrate'] }, logged: [] });
    expect(migrate('debug').logged).toEqual([expect.objectContaining({ level: 20, msg: expect.stringContaining('without its code cache (V8 refused it') })]);
  });

  it('leaves the bundle to Node\'s own loader when source maps are on, so that stack traces point into the sources', () => {
    writeCache();
    // A bundle whose main throws on its line 2, which its map places on line 21 of main.ts.
    writeFileSync(join(app, 'bundle.js'), 'exports.main = () => {\n  throw new Error("boom");\n};\n//# sourceMappingURL=bundle.js.map\n');
    const mappings = 'AAAA;AAoBA;AAUA'; // bundle lines 1, 2, 3 → main.ts lines 1, 21, 31
    writeFileSync(join(app, 'bundle.js.map'), JSON.stringify({ version: 3, file: 'bundle.js', sources: ['main.ts'], names: [], mappings }));
    const child = spawnSync(process.execPath, ['--enable-source-maps', join(app, 'main.js')], { env: { PATH: process.env.PATH, NODE_OPTIONS: FLAGS, LOG_LEVEL: 'debug' }, encoding: 'utf8' });
    expect(child.status).toBe(1);
    expect(child.stderr).toContain('"msg":"bundle.js compiled without its code cache (source maps are on)"');
    expect(child.stderr).toMatch(/at (Object\.)?exports\.main \(\S*main\.ts:21:\d+\)/);
  });

  it('never runs a bundle changed after the build with the old bytecode, even at the same length', () => {
    writeCache();
    writeFileSync(join(app, 'bundle.js'), bundleSaying('howdy'));
    const started = run();
    expect(started.output).toMatchObject({ said: 'bundle howdy' });
    expect(started.logged).toEqual([expect.objectContaining({ level: 30, msg: expect.stringContaining('without its code cache (it was written for another bundle.js)') })]);
  });

  it('starts without a cache when the build wrote none, and logs only at the level asked for', () => {
    expect(existsSync(join(app, 'bundle.js.code-cache'))).toBe(false);
    expect(run().logged).toEqual([expect.objectContaining({ level: 30, msg: expect.stringContaining('(the build wrote none)') })]);
    const quiet = run({ env: { LOG_LEVEL: 'warn' } });
    expect(quiet).toMatchObject({ status: 0, output: { said: 'bundle hello' }, logged: [] });
  });
});
