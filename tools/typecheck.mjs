#!/usr/bin/env node
// `npm run typecheck`: every TypeScript program of the repository, two at a time (one per core). The Node projects and
// the cross-project tests are one program (tsconfig.typecheck.json): checked per project, as each project's Nx
// `typecheck` target does for editors, the libraries and the packages' typings were checked again for every app
// (124 s against 27 s here). The web app and its service worker are programs of their own (DOM, WebWorker).
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const programs = ['tsconfig.typecheck.json', 'apps/web/tsconfig.json', 'apps/web/tsconfig.sw.json'];

function check(project) {
  return new Promise((resolve) => {
    const child = spawn('npx', ['tsc', '-p', project, '--noEmit'], { stdio: 'inherit' });
    child.on('exit', (code) => resolve({ project, ok: code === 0 }));
  });
}

const queue = [...programs];
const results = [];
await Promise.all(
  Array.from({ length: Math.min(2, availableParallelism()) }, async () => {
    while (queue.length > 0) results.push(await check(queue.shift()));
  }),
);
const failed = results.filter((result) => !result.ok).map((result) => result.project);
if (failed.length > 0) {
  console.error(`\nTypes do not check in ${failed.join(', ')}.`);
  process.exit(1);
}
console.log(`Types check in ${programs.join(', ')}.`);
