// Builds one NestJS app into dist/apps/<app>/main.js. Workspace libs (@homing/*) are bundled;
// every other package stays a require() so native modules and their files load from node_modules.
// SWC, not esbuild: Nest's dependency injection needs the decorator metadata esbuild drops.
const path = require('node:path');
const fs = require('node:fs');
const webpack = require('webpack');

const swcOptions = JSON.parse(fs.readFileSync(path.join(__dirname, '../../.swcrc'), 'utf8'));
delete swcOptions.$schema;
swcOptions.module = { type: 'es6' };

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
        if (!request || request.startsWith('.') || path.isAbsolute(request) || request.startsWith('@homing/')) {
          return callback();
        }
        return callback(null, `commonjs ${request}`);
      },
    ],
    module: {
      rules: [{ test: /\.ts$/, exclude: /node_modules/, use: { loader: 'swc-loader', options: swcOptions } }],
    },
    optimization: { minimize: false },
    // One file per service: a dynamic import() of our own code (a service's commands, the database module) stays in
    // main.js, its modules evaluated only when it is called.
    plugins: [new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 })],
    node: { __dirname: false, __filename: false },
    stats: 'errors-warnings',
    performance: { hints: false },
  };
};
