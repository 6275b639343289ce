#!/usr/bin/env node
// `npm run bench` runs every benchmark; `npm run bench -- b1` or `-- l1` one of them; further options go to it.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const BENCHES = { b1: 'scan-cpu-ratio.bench.mjs', l1: 'items-scan.bench.mjs' };
const [first, ...rest] = process.argv.slice(2);
const chosen = first in BENCHES ? [first] : Object.keys(BENCHES);
const options = first in BENCHES ? rest : process.argv.slice(2);
for (const name of chosen) {
  console.log(`\n== ${name.toUpperCase()} ==`);
  const { status } = spawnSync(process.execPath, [resolve(import.meta.dirname, BENCHES[name]), ...options], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
