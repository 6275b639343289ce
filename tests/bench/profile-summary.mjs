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

/** The package (`node_modules/<package>`) a path lies in, or null. */
function packageOfPath(path) {
  const modules = path.lastIndexOf('node_modules/');
  if (modules < 0) return null;
  const parts = path.slice(modules + 'node_modules/'.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
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

/**
 * Where a frame's code lies: node_modules/<package>, node's own internals, our code (`homing: apps/…/x.ts`, or
 * `homing (<app>)` for a bundle without its map), or V8's pseudo-frames; and its line there (1-based), if it has one.
 * A frame of a service's bundle is followed through the bundle's source map to the file it was built from.
 */
const origins = new Map();
function originOf(callFrame) {
  const { url, functionName, lineNumber, columnNumber } = callFrame;
  if (!url) return { where: functionName.startsWith('(') ? functionName : '(native)' };
  const key = `${url}:${lineNumber}:${columnNumber}`;
  if (!origins.has(key)) origins.set(key, locate(url, lineNumber, columnNumber));
  return origins.get(key);
}

function locate(url, lineNumber, columnNumber) {
  const line = lineNumber + 1;
  const pkg = packageOfPath(url);
  if (pkg) return { where: pkg, line };
  if (url.startsWith('node:')) return { where: `node:${url.slice(5).split('/')[0]}`, line };
  if (!url.includes('/dist/apps/')) return { where: url, line };
  const original = sourceMapOf(url)?.originalPositionFor({ line, column: columnNumber });
  if (!original?.source) return { where: `homing (${url.split('/dist/apps/')[1].split('/')[0]})`, line };
  return { where: packageOfPath(original.source) ?? `homing: ${original.source.replace(/^webpack:\/\/(homing)?\/?(\.\/)?/, '')}`, line: original.line };
}

const packageOf = (callFrame) => originOf(callFrame).where;

const byPackage = new Map();
const byFunction = new Map();
const insidePackage = new Map();
let busy = 0;
for (const [id, micros] of selfMicros) {
  const { callFrame } = nodes.get(id);
  if (left.has(callFrame.functionName) && !callFrame.url) continue;
  busy += micros;
  const { where: pkg, line } = originOf(callFrame);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
  const name = `${callFrame.functionName || '(anonymous)'} ${pkg}${line === undefined ? '' : `:${line}`}`;
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
