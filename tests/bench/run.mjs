#!/usr/bin/env node
// `npm run bench` runs every benchmark; `npm run bench -- b1` (or b3, b5, b4, b6, b8, l1) one of them; further options go to it.
// `--smoke` runs each for a few seconds, judges nothing and writes nothing (npm test's bench-smoke tier).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

// b1 also measures B2 (the framework's share of a cached scan); b3 also B5 (the sustained rate, on the same stack).
const BENCHES = {
  b1: ['scan-cpu-ratio.bench.mjs'],
  b3: ['messages.bench.mjs'],
  b5: ['messages.bench.mjs', '--only', 'b5'],
  b4: ['polls.bench.mjs'],
  b6: ['qr.bench.mjs'],
  b7: ['finder-page.bench.mjs'],
  b8: ['footprint.bench.mjs'],
  l1: ['items-scan.bench.mjs'],
};
// Measured by another entry of a whole run (b5 by b3).
const PART_OF_ANOTHER = new Set(['b5']);
// L1 knows no --smoke and measures the scan B1 already exercises: the smoke leaves it out.
const SMOKE_SKIPS = new Set(['l1']);
const [first, ...rest] = process.argv.slice(2);
const options = first in BENCHES ? rest : process.argv.slice(2);
const smoke = options.includes('--smoke');
const chosen = first in BENCHES ? [first] : Object.keys(BENCHES).filter((name) => !PART_OF_ANOTHER.has(name) && !(smoke && SMOKE_SKIPS.has(name)));
const started = Date.now();
const took = [];
for (const name of chosen) {
  console.log(`\n== ${name.toUpperCase()} ==`);
  const begin = Date.now();
  const { status } = spawnSync(process.execPath, [resolve(import.meta.dirname, BENCHES[name][0]), ...BENCHES[name].slice(1), ...options], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
  took.push(`${name} ${((Date.now() - begin) / 1000).toFixed(0)} s`);
}
console.log(`\n${took.join(', ')}: done in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
