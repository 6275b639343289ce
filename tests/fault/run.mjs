#!/usr/bin/env node
// `npm run test:fault [-- --full] [jest args]`: the reliability suite. Small sizes by default (as in `npm test`);
// `--full` runs the sizes RELIABILITY.md names and records them in docs/reliability.md.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const full = args.includes('--full');
const rest = args.filter((arg) => arg !== '--full');
const { status } = spawnSync('npx', ['jest', '-c', 'jest.fault.config.js', ...rest], {
  stdio: 'inherit',
  env: { ...process.env, HOMING_FAULT_FULL: full ? '1' : '0' },
});
process.exit(status ?? 1);
