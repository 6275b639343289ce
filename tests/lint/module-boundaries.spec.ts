import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const eslintBin = resolve(root, 'node_modules/eslint/bin/eslint.js');

interface LintResult {
  messages: Array<{ ruleId: string | null; message: string }>;
}

// Runs the real ESLint CLI with the workspace config, as `npm run lint` does, on code given for a path.
function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  return new Promise((resolveErrors, reject) => {
    const child = execFile(process.execPath, [eslintBin, '--stdin', '--stdin-filename', filePath, '--format', 'json'], { cwd: root }, (error, stdout) => {
      try {
        const [result] = JSON.parse(stdout) as LintResult[];
        resolveErrors(result.messages.filter((message) => message.ruleId === '@nx/enforce-module-boundaries').map((message) => message.message));
      } catch {
        reject(error ?? new Error(`eslint printed no JSON: ${stdout}`));
      }
    });
    child.stdin?.end(code);
  });
}

// ARCHITECTURE §2: apps import contracts and platform libs, never another app; contracts import nothing else.
describe('module boundaries', () => {
  jest.setTimeout(60_000);

  it('fails lint when an app imports another app', async () => {
    const errors = await boundaryErrors('apps/gateway/src/bad-import.ts', "import { ItemsService } from '../../items/src/items/items.service';\nexport const x = ItemsService;\n");
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

  it('lets an app import contracts and platform', async () => {
    const errors = await boundaryErrors('apps/gateway/src/good-import.ts', "import { ResponseCode } from '@homing/contracts';\nimport { RpcClient } from '@homing/platform';\nexport const x = [ResponseCode, RpcClient];\n");
    expect(errors).toEqual([]);
  });
});
