import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { asArray, asRecord, read, root } from './support';

// docs/operations.md names metrics, variables, paths and policies an operator types or searches for: each must exist.
const doc = read('docs/operations.md');

function sourcesUnder(directory: string): string[] {
  return readdirSync(join(root, directory)).flatMap((entry) => {
    const path = `${directory}/${entry}`;
    if (entry === 'node_modules' || entry === 'dist') return [];
    if (statSync(join(root, path)).isDirectory()) return sourcesUnder(path);
    return /\.ts$/.test(entry) && !/\.(spec|integration-spec|e2e-spec)\.ts$/.test(entry) ? [path] : [];
  });
}

const code = ['apps', 'libs'].flatMap((directory) => readdirSync(join(root, directory)).map((entry) => `${directory}/${entry}/src`)).flatMap((directory) => {
  try {
    return sourcesUnder(directory).map(read);
  } catch {
    return [];
  }
})
  // The image's CMD reads NODE_OPTIONS: an operator's own go after each service's.
  .concat(read('deploy/docker/Dockerfile'))
  .join('\n');

describe('docs/operations.md', () => {
  it('names only metrics the services export', () => {
    // homing_* anywhere, and any snake_case name of three words or more in backticks (a Prometheus name's shape).
    const metrics = [...new Set([...doc.matchAll(/\bhoming_[a-z_]+|(?<=`)[a-z]+(?:_[a-z0-9]+){2,}(?=[`{])/g)].map((match) => match[0]))];
    expect(metrics.length).toBeGreaterThan(0);
    expect(metrics.filter((metric) => !code.includes(`'${metric}'`))).toEqual([]);
  });

  it('names only variables, codes and streams the code knows', () => {
    const names = [...new Set([...doc.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])`/g)].map((match) => match[1]))];
    expect(names).toEqual(expect.arrayContaining(['PUBLIC_URL', 'RPC_MAX_IN_FLIGHT', 'HOMING_DEAD_LETTERS']));
    expect(names.filter((name) => !code.includes(name))).toEqual([]);
  });

  it('sends health checks to /health/* at the root, not under /api/v1', () => {
    expect(doc).not.toMatch(/\/api\/v1\/health/);
    const contract = read('apps/gateway/src/http/http-contract.ts');
    for (const path of new Set([...doc.matchAll(/\/health\/([a-z]+)/g)].map((match) => match[1]))) expect(contract).toContain(`'health/${path}'`);
  });

  it('tells the operator where every egress policy points, and names only policies that exist', () => {
    const policies = parseAllDocuments(read('k8s/base/network-policies.yaml'))
      .map((document) => asRecord(document.toJS()))
      .filter((policy) => policy.kind === 'NetworkPolicy');
    const egress = policies.filter((policy) => asArray(asRecord(policy.spec).egress).length > 0).map((policy) => String(asRecord(policy.metadata).name));
    const named = [...doc.matchAll(/^\| `([a-z-]+)`/gm)].map((match) => match[1]).filter((name) => name.includes('-'));
    const all = policies.map((policy) => String(asRecord(policy.metadata).name));
    expect(named.filter((name) => !all.includes(name))).toEqual([]);
    expect(egress.filter((name) => !['allow-dns', 'web-to-gateway'].includes(name) && !named.includes(name))).toEqual([]);
  });

  it('derives the capacity model from the bench and says how far its figures swing', () => {
    const model = doc.slice(doc.indexOf('## 7. Capacity model'));
    expect(model).toMatch(/2-core VM/);
    expect(model).toMatch(/2–3× from run to run/);
    for (const source of ['B1', 'B3', 'B4']) expect(model).toContain(source);
    expect(model).toMatch(/Peak factors/);
  });
});
