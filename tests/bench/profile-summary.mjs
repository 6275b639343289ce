#!/usr/bin/env node
// Where a process's CPU time goes, from a V8 .cpuprofile (node --cpu-prof): self time by package and by function,
// as a share of the busy time (idle excluded). --skip S leaves out the first S seconds (start-up: module loading).
// With every server on one core, a socket write that wakes its reader is where the writer waits for the core,
// so V8's wall-clock samples pile up in writeBuffer/writev: --without-writes leaves those frames out.
// Usage: node tests/bench/profile-summary.mjs <file.cpuprofile> [--top 25] [--skip 10] [--without-writes]
import { readFileSync } from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
const option = (name, fallback) => (rest.includes(`--${name}`) ? Number(rest[rest.indexOf(`--${name}`) + 1]) : fallback);
const top = option('top', 25);
const skipMicros = option('skip', 0) * 1e6;
const left = new Set(['(idle)', ...(rest.includes('--without-writes') ? ['writeBuffer', 'writev', 'writeString', 'writeUtf8String'] : [])]);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map();
let elapsed = 0;
profile.samples.forEach((id, index) => {
  elapsed += profile.timeDeltas[index] ?? 0;
  if (elapsed >= skipMicros) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});

/** node_modules/<package>, node's own internals, our bundled app code, or V8's pseudo-frames. */
function packageOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url.includes('/dist/apps/')) return `homing (${url.split('/dist/apps/')[1].split('/')[0]})`;
  return url;
}

const byPackage = new Map();
const byFunction = new Map();
let busy = 0;
for (const [id, micros] of selfMicros) {
  const { callFrame } = nodes.get(id);
  if (left.has(callFrame.functionName) && !callFrame.url) continue;
  busy += micros;
  const pkg = packageOf(callFrame);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
  const name = `${callFrame.functionName || '(anonymous)'} ${pkg}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
}
const share = (micros) => `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${share(micros)}  ${name}`);
};
const wall = profile.endTime - profile.startTime;
console.log(`${file}: busy ${(busy / 1e6).toFixed(1)} s of ${(wall / 1e6).toFixed(1)} s`);
print('self time by package', byPackage);
print('self time by function', byFunction);
