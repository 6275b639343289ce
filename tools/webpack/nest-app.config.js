// Builds one NestJS app into dist/apps/<app>/: bundle.js, the app with workspace libs (@homing/*) and the packages in
// BUNDLED (every other package stays a require() so native modules and their files load from node_modules); main.js,
// which runs it from V8's code cache (service-launcher.js); and bundle.js.code-cache, that cache.
// SWC, not esbuild: Nest's dependency injection needs the decorator metadata esbuild drops.
const path = require('node:path');
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const webpack = require('webpack');
const MinimizerPlugin = require('minimizer-webpack-plugin');

const swcOptions = JSON.parse(fs.readFileSync(path.join(__dirname, '../../.swcrc'), 'utf8'));
delete swcOptions.$schema;
swcOptions.module = { type: 'es6' };

// Pure-JavaScript packages that read no files of their own, bundled to shorten the start (B8, docs/benchmarks.md): Node
// spent a third of a service's start resolving and compiling its ~2,000 CommonJS files, and a bundle is one file whose
// modules are evaluated only when first required. zod and @opentelemetry/api also lose what the services never use
// (zod's 40 locales) by tree-shaking their ES modules.
// - Nest comes whole: every @nestjs/* package and Nest plugin a service uses, with rxjs, is listed, so that one copy of
//   each serves them all (a plugin left in node_modules would bring its own @nestjs/core, and classes such as
//   Reflector would no longer match across the two). @nestjs/websockets and platform-express are not installed: Nest
//   asks for them by name and does without.
// - Never listed: pg, ioredis and the HTTP server (OpenTelemetry's instrumentations patch them as they are required, so
//   they must come from node_modules), fastify (the adapter and Fastify's plugins must share it), and packages with
//   native code or files read at run time (argon2, sharp, pdfkit, swagger-ui-dist, pino's workers).
const BUNDLED = /^(@nestjs\/(common|core|microservices|platform-fastify|swagger|throttler|mapped-types)|@nest-lab\/throttler-storage-redis|rxjs|tslib|iterare|uid|fast-safe-stringify|path-to-regexp|load-esm|zod|uuid|@opentelemetry\/api|bullmq|semver|cron-parser|luxon|msgpackr|@nats-io\/[^/]+|prom-client|tdigest|bintrees|nodemailer)(\/|$)/;

/** The package of `request` when it is installed and needs Nest itself (a Nest plugin), else undefined. */
function nestPluginLeftOut(root, request) {
  const name = request.split('/').slice(0, request.startsWith('@') ? 2 : 1).join('/');
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8'));
  } catch {
    return undefined; // not installed: an optional package Nest asks for by name
  }
  const needs = { ...manifest.dependencies, ...manifest.peerDependencies };
  return name.startsWith('@nestjs/') || '@nestjs/common' in needs || '@nestjs/core' in needs ? name : undefined;
}

/**
 * Writes `node-options` beside main.js: the Node and V8 options the service runs with, one line. Every launcher of a
 * built service reads it: the image's CMD (so compose and Kubernetes), `npm start` and the benchmarks
 * (deploy/dev/node-options.mjs). They go first in NODE_OPTIONS, so an operator's own NODE_OPTIONS comes after and wins.
 */
class NodeOptionsFile {
  constructor(options) {
    this.line = `${options.join(' ')}\n`;
  }

  apply(compiler) {
    compiler.hooks.thisCompilation.tap(NodeOptionsFile.name, (compilation) => {
      compilation.hooks.processAssets.tap({ name: NodeOptionsFile.name, stage: webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
        compilation.emitAsset('node-options', new webpack.sources.RawSource(this.line));
      });
    });
  }
}

/**
 * Writes main.js beside the bundle (tools/webpack/service-launcher.js) and, once the bundle is on disk, has it write
 * bundle.js.code-cache: it evaluates the bundle under the service's own Node options (V8 takes a cache only under the
 * flags it was made with) and nothing of the builder's environment, and exits without starting the service.
 */
class ServiceLauncher {
  constructor(options) {
    this.nodeOptions = options.join(' ');
  }

  apply(compiler) {
    compiler.hooks.thisCompilation.tap(ServiceLauncher.name, (compilation) => {
      compilation.hooks.processAssets.tap({ name: ServiceLauncher.name, stage: webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
        compilation.emitAsset('main.js', new webpack.sources.RawSource(fs.readFileSync(path.join(__dirname, 'service-launcher.js'))));
      });
    });
    compiler.hooks.afterEmit.tap(ServiceLauncher.name, (compilation) => {
      if (compilation.errors.length > 0) return;
      const main = path.join(compilation.outputOptions.path, 'main.js');
      try {
        execFileSync(process.execPath, [main], { env: { NODE_OPTIONS: this.nodeOptions, HOMING_WRITE_CODE_CACHE: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
      } catch (error) {
        compilation.errors.push(new webpack.WebpackError(`writing ${main}'s code cache failed: ${error.stderr?.toString().trim() || error.message}`));
      }
    });
  }
}

/**
 * @param appName the folder under apps/
 * @param nodeOptions Node and V8 options of the service's process (NODE_OPTIONS syntax), written to node-options
 */
module.exports = function nestAppConfig(appName, { nodeOptions = [] } = {}) {
  const root = path.resolve(__dirname, '../..');
  return {
    mode: 'production',
    target: 'node20',
    devtool: 'source-map',
    context: root,
    entry: path.join(root, 'apps', appName, 'src/main.ts'),
    // The bundle exports main.ts's `main`; main.js calls it once the bundle is evaluated.
    output: { path: path.join(root, 'dist/apps', appName), filename: 'bundle.js', library: { type: 'commonjs2' }, clean: true },
    resolve: { extensions: ['.ts', '.js', '.json'] },
    externals: [
      ({ request }, callback) => {
        if (!request || request.startsWith('.') || path.isAbsolute(request) || request.startsWith('@homing/') || BUNDLED.test(request)) {
          return callback();
        }
        const nestPlugin = nestPluginLeftOut(root, request);
        if (nestPlugin) return callback(new Error(`${nestPlugin} builds on Nest: add it to BUNDLED in tools/webpack/nest-app.config.js, so that it shares the bundle's one copy of Nest`));
        return callback(null, `commonjs ${request}`);
      },
    ],
    module: {
      rules: [{ test: /\.ts$/, exclude: /node_modules/, use: { loader: 'swc-loader', options: swcOptions } }],
      // createRequire() gives Node's own require, for a file known only at run time (the gateway's finder page module):
      // webpack would otherwise make it its own, which finds only what it bundled.
      parser: { javascript: { createRequire: false } },
    },
    // Whitespace and comments out, every non-ASCII character escaped; names and code as written (no compression, no
    // mangling), so stack traces name the functions and the source map gives the place. V8 keeps a script's source in the
    // heap for the life of the process, at two bytes a character once a single one is beyond Latin-1 (an arrow in a
    // message): notifications' 5.9 MB bundle held 11.7 MB of every replica (B8, docs/benchmarks.md).
    optimization: {
      minimize: true,
      minimizer: [
        new MinimizerPlugin({
          // The bundle only: main.js is the launcher as written.
          test: /^bundle\.js$/,
          // Licence and copyright notices go to bundle.js.LICENSE.txt beside the bundle (swc takes no regexp flags).
          extractComments: { condition: /^\**!|@preserve|@license|[Cc]opyright|COPYRIGHT/ },
          minify: { implementation: MinimizerPlugin.swcMinify, options: { compress: false, mangle: false, format: { asciiOnly: true } } },
        }),
      ],
    },
    // Requires of a name known only at run time, in code paths no service takes: BullMQ's sandboxed processors (jobs
    // run in process here), Nest's loader of optional packages (every call site passes its own require, which the
    // bundle keeps), its gRPC transport, and load-esm (for ES-only packages, none of which are used).
    ignoreWarnings: [
      {
        module: /node_modules[\\/](bullmq[\\/]dist[\\/]esm[\\/]classes[\\/]child-processor|@nestjs[\\/]common[\\/]utils[\\/]load-package\.util|@nestjs[\\/]core[\\/]helpers[\\/](load-adapter|optional-require)|@nestjs[\\/]microservices[\\/](client[\\/]client|server[\\/]server)-grpc|load-esm[\\/]index)\.js$/,
        message: /Critical dependency: the request of a dependency is an expression/,
      },
    ],
    // One file per service: a dynamic import() of our own code (a service's commands, the database module) stays in
    // bundle.js, its modules evaluated only when it is called.
    plugins: [new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 }), new NodeOptionsFile(nodeOptions), new ServiceLauncher(nodeOptions)],
    node: { __dirname: false, __filename: false },
    stats: 'errors-warnings',
    performance: { hints: false },
  };
};
