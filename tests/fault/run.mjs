#!/usr/bin/env node
// `npm run test:fault [-- --full] [jest args]`: the reliability suite. Small sizes by default (as in `npm test`);
// `--full` runs the sizes RELIABILITY.md names and records them in docs/reliability.md: the fault tests, then the
// security suite (tests/security, which at small sizes runs in the e2e tier) at its full sizes.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const full = args.includes('--full');
const rest = args.filter((arg) => arg !== '--full');
const env = { ...process.env, HOMING_FAULT_FULL: full ? '1' : '0' };
const run = (jestArgs) => spawnSync('npx', ['jest', ...jestArgs], { stdio: 'inherit', env }).status ?? 1;

let status = run(['-c', 'jest.fault.config.js', ...rest]);
if (full) status = run(['-c', 'jest.e2e.config.js', '--runInBand', '--testTimeout', String(60 * 60_000), 'tests/security', ...rest]) || status;
process.exit(status);
