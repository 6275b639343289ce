// Builds one NestJS app into dist/apps/<app>/main.js. Workspace libs (@homing/*) and the packages in BUNDLED are
// bundled; every other package stays a require() so native modules and their files load from node_modules.
// SWC, not esbuild: Nest's dependency injection needs the decorator metadata esbuild drops.
const path = require('node:path');
const fs = require('node:fs');
const webpack = require('webpack');

const swcOptions = JSON.parse(fs.readFileSync(path.join(__dirname, '../../.swcrc'), 'utf8'));
delete swcOptions.$schema;
swcOptions.module = { type: 'es6' };

// Pure-JavaScript packages that read no files of their own, bundled to shorten the start (B8, docs/benchmarks.md): Node
// spends a third of a service's start resolving and compiling its ~2,000 CommonJS files, and a bundle is one file.
// zod and @opentelemetry/api also lose what the services never use (zod's 40 locales) by tree-shaking their ES modules.
// Never listed here: Nest and rxjs (Nest requires them itself, and one copy of each must serve both), pg, ioredis and
// the HTTP server (OpenTelemetry's instrumentations patch them as they are required, so they must come from
// node_modules), and packages with native code or files read at run time (argon2, sharp, pdfkit, pino's workers).
const BUNDLED = /^(zod|uuid|@opentelemetry\/api|bullmq|semver|cron-parser|luxon|msgpackr|@nats-io\/[^/]+|prom-client|tdigest|bintrees|nodemailer)(\/|$)/;

module.exports = function nestAppConfig(appName) {
  const root = path.resolve(__dirname, '../..');
  return {
    mode: 'production',
    target: 'node20',
    devtool: 'source-map',
    context: root,
    entry: path.join(root, 'apps', appName, 'src/main.ts'),
    output: { path: path.join(root, 'dist/apps', appName), filename: 'main.js', clean: true },
    resolve: { extensions: ['.ts', '.js', '.json'] },
    externals: [
      ({ request }, callback) => {
        if (!request || request.startsWith('.') || path.isAbsolute(request) || request.startsWith('@homing/') || BUNDLED.test(request)) {
          return callback();
        }
        return callback(null, `commonjs ${request}`);
      },
    ],
    module: {
      rules: [{ test: /\.ts$/, exclude: /node_modules/, use: { loader: 'swc-loader', options: swcOptions } }],
    },
    optimization: { minimize: false },
    // BullMQ's sandboxed processors import a file named at run time; this service runs its jobs in process.
    ignoreWarnings: [{ module: /bullmq[\\/]dist[\\/]esm[\\/]classes[\\/]child-processor\.js$/ }],
    // One file per service: a dynamic import() of our own code (a service's commands, the database module) stays in
    // main.js, its modules evaluated only when it is called.
    plugins: [new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 })],
    node: { __dirname: false, __filename: false },
    stats: 'errors-warnings',
    performance: { hints: false },
  };
};
