'use strict';
// dist/apps/<app>/main.js, written by the build (tools/webpack/nest-app.config.js): runs the service's bundle,
// bundle.js, compiled from the V8 code cache the build wrote beside it, bundle.js.code-cache.
//
// Why: compiling the 2–4 MB bundle, and then each function as it first runs, was a fifth of a service's cold start
// (B8, docs/benchmarks.md: notifications 640 ms to ready, 530 ms from the cache; the gateway 535 and 420 ms). The cache
// holds the bytecode of every function the bundle's evaluation ran, so a new replica (a scale-up, a restart) skips
// that work. Nothing is written at run time: the image's files stay read-only.
//
// V8 takes a cache only from its own version and the same V8 flags (the service's node-options, which the build used).
// Under any other (a V8 flag in an operator's NODE_OPTIONS) V8 refuses it: the bundle is compiled as usual, the start
// takes that much longer, and nothing else changes. V8 checks a cache's source by its length only, so the cache also
// carries the bundle's SHA-256: a bundle changed after the build is never run with another one's bytecode.
//
// With `--enable-source-maps` the bundle is required as any module, without the cache (below).
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

if (writing) {
  const { script, digest } = compileBundle(undefined);
  writeFileSync(CODE_CACHE, Buffer.concat([digest, script.createCachedData()]));
  process.exit(0);
}
if (process.sourceMapsEnabled) {
  // `--enable-source-maps`, for stack traces in TypeScript: Node maps the frames of the modules its own loader
  // compiles, and not those of a vm script, so the bundle is required as any module, without the cache.
  log({ level: 'debug', msg: 'bundle.js compiled without its code cache (source maps are on)' });
  require(BUNDLE).main();
} else {
  startFromCodeCache();
}

function startFromCodeCache() {
  const started = performance.now();
  const { script, exports, cache } = compileBundle(readCodeCache);
  const ms = (performance.now() - started).toFixed(0);
  // A start without the cache is worth an operator's notice (info); a one-off command's (`main.js migrate`, which a
  // migration Job or npm start runs without node-options) is not.
  const command = process.argv[2] !== undefined;
  log(cache.data && !script.cachedDataRejected
    ? { level: 'debug', msg: `bundle.js compiled from its code cache and evaluated in ${ms} ms` }
    : { level: command ? 'debug' : 'info', msg: `bundle.js compiled without its code cache (${cache.why ?? 'V8 refused it: another Node, or V8 flags other than node-options'}) and evaluated in ${ms} ms` });
  exports.main();
}

/**
 * Compiles bundle.js, with the cache `readCache` finds for its bytes if given, and evaluates it as a CommonJS module of
 * this folder: its require() finds node_modules, its __dirname is dist/apps/<app>.
 */
function compileBundle(readCache) {
  const bytes = readFileSync(BUNDLE);
  const digest = createHash('sha256').update(bytes).digest();
  const cache = readCache ? readCache(digest) : {};
  const script = new vm.Script(Module.wrap(bytes.toString('utf8')), {
    filename: BUNDLE,
    cachedData: cache.data,
    // import() as in any CommonJS module (a vm script has none by default). No service uses it today: Node prints an
    // experimental warning the first time one does.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const bundle = new Module(BUNDLE, module);
  bundle.filename = BUNDLE;
  bundle.paths = Module._nodeModulePaths(__dirname);
  script.runInThisContext().call(bundle.exports, bundle.exports, Module.createRequire(BUNDLE), bundle, BUNDLE, __dirname);
  bundle.loaded = true;
  return { script, digest, cache, exports: bundle.exports };
}

/** The V8 data of the cache written for exactly these bytes (their digest); else none, and why. */
function readCodeCache(digest) {
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

/**
 * One line as the service's logger writes them (pino's JSON), at LOG_LEVEL or above, before the service has a logger;
 * on stderr, since a command's stdout may be its output (`print-sheet` writes a PDF there).
 */
function log({ level, msg }) {
  const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
  if (LEVELS[level] < (LEVELS[process.env.LOG_LEVEL] ?? LEVELS.info)) return;
  process.stderr.write(`${JSON.stringify({ level: LEVELS[level], time: Date.now(), service: basename(__dirname), context: 'CodeCache', msg })}\n`);
}
