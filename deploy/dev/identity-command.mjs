#!/usr/bin/env node
// `npm run identity -- <command> …`: one of identity's commands (grant-admin, revoke-admin, migrate, …) against the
// stack `npm start` runs, with its development keys from .data/ (identity's configuration requires them).
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { devKeyEnv } from './dev-keys.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA_DIR = process.env.HOMING_DATA_DIR || join(ROOT, '.data');
const { env } = devKeyEnv(DATA_DIR);
const { status } = spawnSync(process.execPath, [join(ROOT, 'dist/apps/identity/main.js'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, ...env },
});
process.exit(status ?? 1);
