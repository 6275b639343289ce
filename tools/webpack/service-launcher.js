'use strict';
// dist/apps/<app>/main.js, written by the build (tools/webpack/nest-app.config.js): runs the service's bundle,
// bundle.js, compiled from the V8 code cache the build wrote beside it, bundle.js.code-cache.
//
// Why: compiling the 2–4 MB bundle, and then each function as it first runs, was a fifth of a service's cold start
// (B8, docs/benchmarks.md: notifications 640 ms to ready, 530 ms from the cache; the gateway 535 and 420 ms). The cache
// holds the bytecode of every function the bundle's evaluation ran, so a new replica (a scale-up, a restart, a
// migration Job) skips that work. Nothing is written at run time: the image's files stay read-only.
//
// V8 takes a cache only from its own version and the same V8 flags (the service's node-options, which the build used).
// Any other (an operator's NODE_OPTIONS, a profiler) and V8 refuses it: the bundle is compiled as usual, the start
// takes that much longer, and nothing else changes. V8 checks a cache's source by its length only, so the cache also
// carries the bundle's SHA-256: a bundle changed after the build is never run with another one's bytecode.
//
// `HOMING_WRITE_CODE_CACHE=1 node main.js` (the build, with the service's node-options) evaluates the bundle, writes
// the cache and exits without starting the service.
const { createHash } = require('node:crypto');
const { readFileSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { basename, join } = require('node:path');
const vm = require('node:vm');

const BUNDLE = join(__dirname, 'bundle.js');
const CODE_CACHE = `${BUNDLE}.code-cache`;
const DIGEST_BYTES = 32;
const writing = process.env.HOMING_WRITE_CODE_CACHE === '1';

const bytes = readFileSync(BUNDLE);
const digest = createHash('sha256').update(bytes).digest();

/** The V8 data of the cache written for exactly these bytes; else undefined, and why. */
function readCodeCache() {
  let file;
  try {
    file = readFileSync(CODE_CACHE);
  } catch (error) {
    if (error.code === 'ENOENT') return { why: 'the build wrote none' };
    throw error;
  }
  if (!file.subarray(0, DIGEST_BYTES).equals(digest)) return { why: 'it was written for another bundle.js' };
  return { data: file.subarray(DIGEST_BYTES) };
}

const cache = writing ? {} : readCodeCache();
const compileStart = performance.now();
const script = new vm.Script(Module.wrap(bytes.toString('utf8')), {
  filename: BUNDLE,
  cachedData: cache.data,
  // import() as in any CommonJS module (a vm script has none by default). No service uses it today: Node prints an
  // experimental warning the first time one does.
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const compileMs = performance.now() - compileStart;

// The bundle as a CommonJS module of this folder: its require() finds node_modules, __dirname is dist/apps/<app>.
const bundle = new Module(BUNDLE, module);
bundle.filename = BUNDLE;
bundle.paths = Module._nodeModulePaths(__dirname);
script.runInThisContext().call(bundle.exports, bundle.exports, Module.createRequire(BUNDLE), bundle, BUNDLE, __dirname);
bundle.loaded = true;

if (writing) {
  writeFileSync(CODE_CACHE, Buffer.concat([digest, script.createCachedData()]));
  process.exit(0);
}
// A start without the cache is worth an operator's notice (info); a one-off command's (`main.js migrate`, which a
// migration Job or npm start runs without node-options) is not.
const command = process.argv[2] !== undefined;
log(cache.data && !script.cachedDataRejected
  ? { level: 'debug', msg: `bundle.js compiled from its code cache in ${compileMs.toFixed(0)} ms` }
  : { level: command ? 'debug' : 'info', msg: `bundle.js compiled without its code cache (${cache.why ?? 'V8 refused it: another Node, or V8 flags other than node-options'}) in ${compileMs.toFixed(0)} ms` });
bundle.exports.main();

/**
 * One line as the service's logger writes them (pino's JSON), at LOG_LEVEL or above, before the service has a logger;
 * on stderr, since a command's stdout may be its output (`print-sheet` writes a PDF there).
 */
function log({ level, msg }) {
  const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
  if (LEVELS[level] < (LEVELS[process.env.LOG_LEVEL] ?? LEVELS.info)) return;
  process.stderr.write(`${JSON.stringify({ level: LEVELS[level], time: Date.now(), service: basename(__dirname), context: 'CodeCache', msg })}\n`);
}
