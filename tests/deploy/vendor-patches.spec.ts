import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { read, root } from './support';

// The patches every install applies to node_modules (patches/, package.json's postinstall), described in
// patches/README.md. Each one's effect is checked on what this checkout's install put in node_modules.

const PATCH_NAME = /^(?<name>(@[^+]+\+)?[^+]+)\+(?<version>\d[^+]*)\.patch$/;

describe('patches to installed packages', () => {
  const patches = readdirSync(join(root, 'patches')).filter((file) => file.endsWith('.patch'));

  it('are applied by every install, each to the version installed, and each described in patches/README.md', () => {
    const manifest = JSON.parse(read('package.json')) as { scripts: Record<string, string>; dependencies: Record<string, string> };
    expect(manifest.scripts.postinstall).toBe('patch-package');
    expect(patches.length).toBeGreaterThan(0);
    const readme = read('patches/README.md');
    for (const patch of patches) {
      const groups = PATCH_NAME.exec(patch)?.groups;
      const name = groups?.name.replace('+', '/') ?? patch;
      const installed = (JSON.parse(read(`node_modules/${name}/package.json`)) as { version: string }).version;
      expect({ patch, described: readme.includes(`## ${patch}`), installed, pinned: manifest.dependencies[name] }).toEqual({
        patch,
        described: true,
        installed: groups?.version,
        pinned: groups?.version,
      });
    }
  });

  it("ioredis: its command methods are added without copying the prototype's descriptors each time, and the prototype is fast again", () => {
    // A young generation larger than what loading ioredis allocates, so that no collection runs meanwhile and the growth
    // of the heap is what the load allocated: about 9 MB unpatched (most of it descriptor arrays), under 4 MB patched.
    const script = `
      const before = process.memoryUsage().heapUsed;
      const { default: Redis } = require('ioredis');
      const allocatedMb = (process.memoryUsage().heapUsed - before) / 2 ** 20;
      // Fast again: a command's lookup on a client takes V8's fast path, as unpatched.
      new Redis({ lazyConnect: true }).get;
      console.log(JSON.stringify({ allocatedMb, fast: %HasFastProperties(Object.getPrototypeOf(Redis.prototype)) }));
    `;
    const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--min-semi-space-size=64', '--max-semi-space-size=64', '-e', script], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const measured = JSON.parse(run.stdout) as { allocatedMb: number; fast: boolean };
    expect({ allocatedUnder6Mb: measured.allocatedMb < 6, fast: measured.fast, measured }).toEqual({ allocatedUnder6Mb: true, fast: true, measured });
  });
});
