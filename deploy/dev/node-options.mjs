// The Node and V8 options a built service runs with: `dist/apps/<app>/node-options`, written by its build from its
// webpack config (tools/webpack/nest-app.config.js). The image's CMD reads the same file; this is how `npm start` and
// the benchmarks read it, so that they run a service as production does. (The fault tests' stack runs V8's defaults:
// it tests what a service does, not what it costs.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The options in `dist/apps/<app>/node-options`; none when the file is missing (a build from before the file existed). */
function nodeOptionsOf(app) {
  let line;
  try {
    line = readFileSync(join(ROOT, 'dist/apps', app, 'node-options'), 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return '';
    throw error;
  }
  return line.trim();
}

/**
 * NODE_OPTIONS for a service's process: its own options first, then any the caller's environment already holds, which
 * thereby win (Node applies NODE_OPTIONS in order, and of a V8 option given twice the last counts), as in the image.
 */
export function nodeOptionsEnv(app, env = process.env) {
  const options = [nodeOptionsOf(app), env.NODE_OPTIONS ?? ''].filter(Boolean).join(' ');
  return options ? { NODE_OPTIONS: options } : {};
}
