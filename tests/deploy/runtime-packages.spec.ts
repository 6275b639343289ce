// Every package a Nest app's code imports at run time survives the image's `npm prune --omit=dev` (deploy/docker/
// Dockerfile, stage prod-deps): a non-dev package of package-lock.json. smtp-server was a devDependency, and the mail
// relay's image died at start with "Cannot find module 'smtp-server'".
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { root } from './support';

const NEST_APPS = ['gateway', 'identity', 'items', 'mail-relay', 'messaging', 'notifications'];

function sourcesUnder(directory: string): string[] {
  return readdirSync(join(root, directory)).flatMap((entry) => {
    const path = `${directory}/${entry}`;
    if (statSync(join(root, path)).isDirectory()) return entry === 'testing' || entry === 'test' ? [] : sourcesUnder(path);
    return /\.ts$/.test(entry) && !/\.(spec|integration-spec|e2e-spec|fault-spec)\.ts$/.test(entry) ? [path] : [];
  });
}

const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** Value imports (not `import type`) of bare package names in a file. */
function valueImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*import\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gm)) {
    if (match[1]) continue;
    const clause = match[2].trim();
    // `import { type A, type B } from` is type-only too.
    if (/^\{[^}]*\}$/.test(clause) && clause.slice(1, -1).split(',').every((part) => !part.trim() || /^type\s/.test(part.trim()))) continue;
    found.push(match[3]);
  }
  for (const match of text.matchAll(/require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1] ?? match[2]);
  return found.filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:') && !specifier.startsWith('@homing/') && !builtinModules.includes(specifier));
}

describe('run-time packages of the service images', () => {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const keptByPrune = (name: string) => {
    const entry = lock.packages[`node_modules/${name}`];
    return entry !== undefined && entry.dev !== true;
  };

  it.each(NEST_APPS)('%s: every package its code imports survives `npm prune --omit=dev`', (app) => {
    const files = [...sourcesUnder(`apps/${app}/src`), ...sourcesUnder('libs/platform/src'), ...sourcesUnder('libs/contracts/src')];
    const pruned = new Set<string>();
    for (const file of files) {
      for (const specifier of valueImports(readFileSync(join(root, file), 'utf8'))) {
        if (!keptByPrune(packageOf(specifier))) pruned.add(`${packageOf(specifier)} (imported by ${file})`);
      }
    }
    expect([...pruned]).toEqual([]);
  });
});
