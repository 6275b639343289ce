import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const eslintBin = resolve(root, 'node_modules/eslint/bin/eslint.js');
const nxPackage = resolve(root, 'node_modules/nx');
const nxBin = resolve(nxPackage, (JSON.parse(readFileSync(resolve(nxPackage, 'package.json'), 'utf8')) as { bin: { nx: string } }).bin.nx);
const RULE = '@nx/enforce-module-boundaries';

interface LintResult {
  fatalErrorCount: number;
  messages: Array<{ ruleId: string | null; message: string; fatal?: boolean }>;
}

function run(args: string[], input?: string, env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; stderr: string; error: Error | null }> {
  return new Promise((resolveRun) => {
    const child = execFile(process.execPath, args, { cwd: root, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => resolveRun({ stdout, stderr, error }));
    child.stdin?.end(input ?? '');
  });
}

// Runs the real ESLint CLI with the workspace config, as `npm run lint` does, on code given for a path. Fails
// loudly unless ESLint parsed the code and the boundary rule actually ran: the rule skips itself, with a mere
// warning, when no Nx project graph has been computed.
async function boundaryErrors(filePath: string, code: string, rule = RULE): Promise<string[]> {
  const { stdout, stderr, error } = await run([eslintBin, '--stdin', '--stdin-filename', filePath, '--format', 'json'], code);
  if (/ProjectGraph|will be skipped/.test(stdout + stderr)) throw new Error(`${RULE} did not run:\n${stdout}\n${stderr}`);
  let results: LintResult[];
  try {
    results = JSON.parse(stdout) as LintResult[];
  } catch {
    throw new Error(`eslint printed no JSON (${error?.message ?? 'exit 0'}):\n${stdout}\n${stderr}`);
  }
  expect(results).toHaveLength(1);
  const [result] = results;
  const fatal = result.messages.filter((message) => message.fatal);
  if (result.fatalErrorCount > 0 || fatal.length > 0) throw new Error(`eslint could not parse ${filePath}: ${fatal.map((message) => message.message).join('; ')}`);
  return result.messages.filter((message) => message.ruleId === rule).map((message) => message.message);
}

const appImportsApp = ['apps/gateway/src/bad-import.ts', "import { ItemsService } from '../../items/src/items/items.service';\nexport const x = ItemsService;\n"] as const;

// ARCHITECTURE §2: apps import contracts and platform libs, never another app; contracts import nothing else.
describe('module boundaries', () => {
  jest.setTimeout(60_000);

  beforeAll(async () => {
    // The rule reads the project graph Nx caches; compute it, so this suite does not depend on the lint tier having
    // run first (a fresh clone has no cache).
    const graphFile = join(tmpdir(), `homing-graph-${process.pid}.json`);
    const { error, stdout, stderr } = await run([nxBin, 'graph', `--file=${graphFile}`], undefined, { ...process.env, NX_DAEMON: 'false' });
    rmSync(graphFile, { force: true });
    if (error) throw new Error(`nx graph failed: ${error.message}\n${stdout}\n${stderr}`);
  }, 120_000);

  it('fails lint when an app imports another app', async () => {
    const errors = await boundaryErrors(...appImportsApp);
    expect(errors.length).toBeGreaterThan(0);
  });

  it("fails lint when an app reaches into another app's database layer", async () => {
    const errors = await boundaryErrors('apps/messaging/src/bad-import.ts', "import { ItemsRepository } from '../../items/src/items/items.repository';\nexport const x = ItemsRepository;\n");
    expect(errors.length).toBeGreaterThan(0);
  });

  it('fails lint when contracts import the platform', async () => {
    const errors = await boundaryErrors('libs/contracts/src/bad-import.ts', "import { RpcClient } from '@homing/platform';\nexport const x = RpcClient;\n");
    expect(errors.length).toBeGreaterThan(0);
  });

  it('fails lint when the web app imports the platform, even in a test', async () => {
    const code = "import { RpcClient } from '@homing/platform';\nexport const x = RpcClient;\n";
    expect(await boundaryErrors('apps/web/src/lib/bad-import.ts', code)).not.toEqual([]);
    expect(await boundaryErrors('apps/web/src/lib/bad-import.spec.ts', code)).not.toEqual([]);
  });

  it('lets an app import contracts and platform', async () => {
    const errors = await boundaryErrors('apps/gateway/src/good-import.ts', "import { ResponseCode } from '@homing/contracts';\nimport { RpcClient } from '@homing/platform';\nexport const x = [ResponseCode, RpcClient];\n");
    expect(errors).toEqual([]);
    // The same run, with a violation: an empty answer above means allowed, not unchecked.
    expect(await boundaryErrors(...appImportsApp)).not.toEqual([]);
  });

  // CONVENTIONS: one way to reach PostgreSQL, through a repository.
  it('fails lint when a service imports TypeORM, and lets a repository import it', async () => {
    const typeorm = "import { DataSource } from 'typeorm';\nexport const x = DataSource;\n";
    expect(await boundaryErrors('apps/items/src/items/items.service.ts', typeorm, 'no-restricted-imports')).not.toEqual([]);
    expect(await boundaryErrors('libs/platform/src/outbox/outbox.relay.ts', "import type { EntityManager } from 'typeorm/entity-manager/EntityManager';\nexport type X = EntityManager;\n", 'no-restricted-imports')).not.toEqual([]);
    expect(await boundaryErrors('apps/items/src/items/items.repository.ts', typeorm, 'no-restricted-imports')).toEqual([]);
    expect(await boundaryErrors('apps/items/src/database/migrations/1799999999999-Example.ts', typeorm, 'no-restricted-imports')).toEqual([]);
  });
});
