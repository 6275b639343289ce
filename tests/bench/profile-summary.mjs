#!/usr/bin/env node
// Where a process's CPU time goes, from a V8 .cpuprofile (node --cpu-prof): self time by package and by function, and
// the time spent inside each package (its callees included), as a share of the busy time (idle excluded).
// --skip S leaves out the first S seconds (start-up: module loading).
// With every server on one core, a socket write that wakes its reader is where the writer waits for the core,
// so V8's wall-clock samples pile up in writeBuffer/writev: --without-writes leaves those frames out.
// A service runs as one webpack bundle (Nest, BullMQ, nodemailer, the NATS client and our code in one file): its frames
// are resolved through the bundle's source map (`bundle.js.map`, written by the build) to the package or source file
// they came from, so "homing (notifications)" is not one lump.
// Usage: node tests/bench/profile-summary.mjs <file.cpuprofile> [--top 25] [--skip 10] [--without-writes]
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SourceMapConsumer } from 'source-map-js';

const [file, ...rest] = process.argv.slice(2);
const option = (name, fallback) => (rest.includes(`--${name}`) ? Number(rest[rest.indexOf(`--${name}`) + 1]) : fallback);
const top = option('top', 25);
const skipMicros = option('skip', 0) * 1e6;
const left = new Set(['(idle)', ...(rest.includes('--without-writes') ? ['writeBuffer', 'writev', 'writeString', 'writeUtf8String'] : [])]);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const selfMicros = new Map();
let elapsed = 0;
profile.samples.forEach((id, index) => {
  elapsed += profile.timeDeltas[index] ?? 0;
  if (elapsed >= skipMicros) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});

/** The package (`node_modules/<package>`) or app path a path names. */
function packageOfPath(path) {
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = path.slice(modules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  return null;
}

/** A bundle's source map, read once per bundle (null when the bundle has none). */
const sourceMaps = new Map();
function sourceMapOf(url) {
  if (!sourceMaps.has(url)) {
    const path = `${url.startsWith('file://') ? fileURLToPath(url) : url}.map`;
    sourceMaps.set(url, existsSync(path) ? new SourceMapConsumer(JSON.parse(readFileSync(path, 'utf8'))) : null);
  }
  return sourceMaps.get(url);
}

/** Where a frame of a service's bundle came from: the package, or our source file (`homing: apps/…/x.ts`). */
const bundled = new Map();
function originOf(callFrame) {
  const key = `${callFrame.url}:${callFrame.lineNumber}:${callFrame.columnNumber}`;
  if (!bundled.has(key)) {
    const app = `homing (${callFrame.url.split('/dist/apps/')[1].split('/')[0]})`;
    const map = sourceMapOf(callFrame.url);
    const source = map?.originalPositionFor({ line: callFrame.lineNumber + 1, column: callFrame.columnNumber })?.source;
    bundled.set(key, source ? (packageOfPath(source) ?? `homing: ${source.replace(/^webpack:\/\/(homing)?\/?(\.\/)?/, '')}`) : app);
  }
  return bundled.get(key);
}

/** node_modules/<package>, node's own internals, our code (through a bundle's source map), or V8's pseudo-frames. */
function packageOf(callFrame) {
  const { url, functionName } = callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = packageOfPath(url);
  if (pkg) return pkg;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url.includes('/dist/apps/')) return originOf(callFrame);
  return url;
}

const byPackage = new Map();
const byFunction = new Map();
const insidePackage = new Map();
let busy = 0;
for (const [id, micros] of selfMicros) {
  const { callFrame } = nodes.get(id);
  if (left.has(callFrame.functionName) && !callFrame.url) continue;
  busy += micros;
  const pkg = packageOf(callFrame);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
  const name = `${callFrame.functionName || '(anonymous)'} ${pkg}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  // Counted once for every package on the sample's stack: the time spent in it and in what it called.
  const onStack = new Set();
  for (let frame = id; frame !== undefined; frame = parentOf.get(frame)) onStack.add(packageOf(nodes.get(frame).callFrame));
  for (const each of onStack) insidePackage.set(each, (insidePackage.get(each) ?? 0) + micros);
}
// The root, the event loop's own frames and V8's microtask runner are on most stacks: they say nothing.
for (const everywhere of ['(root)', 'node:internal', '(native)']) insidePackage.delete(everywhere);
const share = (micros) => `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${share(micros)}  ${name}`);
};
const wall = profile.endTime - profile.startTime;
console.log(`${file}: busy ${(busy / 1e6).toFixed(1)} s of ${(wall / 1e6).toFixed(1)} s`);
print('self time by package', byPackage);
print('self time by function', byFunction);
print('time inside each package or source file (its callees included)', insidePackage);
