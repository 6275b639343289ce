#!/usr/bin/env node
// `npm run bench` runs every benchmark; `npm run bench -- b1` (or b3, b4, b6, b8, l1) one of them; further options go to it.
// `--smoke` runs each for a few seconds, judges nothing and writes nothing (npm test's bench-smoke tier).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

// b1 also measures B2 (the framework's share of a cached scan).
const BENCHES = { b1: 'scan-cpu-ratio.bench.mjs', b3: 'messages.bench.mjs', b4: 'polls.bench.mjs', b6: 'qr.bench.mjs', b8: 'footprint.bench.mjs', l1: 'items-scan.bench.mjs' };
// L1 knows no --smoke and measures the scan B1 already exercises: the smoke leaves it out.
const SMOKE_SKIPS = new Set(['l1']);
const [first, ...rest] = process.argv.slice(2);
const options = first in BENCHES ? rest : process.argv.slice(2);
const smoke = options.includes('--smoke');
const chosen = first in BENCHES ? [first] : Object.keys(BENCHES).filter((name) => !(smoke && SMOKE_SKIPS.has(name)));
const started = Date.now();
const took = [];
for (const name of chosen) {
  console.log(`\n== ${name.toUpperCase()} ==`);
  const begin = Date.now();
  const { status } = spawnSync(process.execPath, [resolve(import.meta.dirname, BENCHES[name]), ...options], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
  took.push(`${name} ${((Date.now() - begin) / 1000).toFixed(0)} s`);
}
console.log(`\n${took.join(', ')}: done in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
