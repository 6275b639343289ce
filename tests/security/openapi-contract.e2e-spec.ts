import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, isolatedName, ServiceProcess, testInfra } from '@homing/testing';

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

const REDOCLY = resolve(__dirname, '../../node_modules/@redocly/cli/bin/cli.js');

/** `redocly lint` with its recommended rules on a document: every problem it reports. */
function lintOpenApi(document: string): Promise<LintProblem[]> {
  const directory = mkdtempSync(join(tmpdir(), 'homing-openapi-'));
  const file = join(directory, 'openapi.json');
  writeFileSync(file, document);
  // Telemetry and update checks off: they reach for the network, which CI does not have.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  return new Promise((resolveLint, reject) => {
    execFile(process.execPath, [REDOCLY, 'lint', '--extends', 'recommended', '--format', 'json', file], { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      rmSync(directory, { recursive: true, force: true });
      try {
        resolveLint((JSON.parse(stdout) as { problems: LintProblem[] }).problems);
      } catch {
        reject(new Error(`redocly printed no report (${error?.message ?? 'exit 0'}):\n${stdout}\n${stderr}`));
      }
    });
  });
}

// The published contract says who may call what and what each call answers: Redocly's recommended rules find no
// error in it (every operation declares its security, public ones an empty requirement) and no warning. A real
// PUBLIC_URL: the recommended rules warn of a server on localhost.
describe('the published OpenAPI document', () => {
  const infra = testInfra();
  let gateway: ServiceProcess;

  beforeAll(async () => {
    gateway = new ServiceProcess('gateway', await freePort(), { NATS_URL: infra.natsUrl, NATS_NAMESPACE: isolatedName(), REDIS_URL: infra.redisUrl, NODE_ENV: 'test', PUBLIC_URL: 'https://tags.homing.test' });
    await gateway.start();
  });

  afterAll(() => gateway?.stop());

  it('passes redocly lint with the recommended rules', async () => {
    const document = await (await fetch(`http://127.0.0.1:${gateway.port}/api/docs/openapi.json`)).text();
    const problems = await lintOpenApi(document);
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual([]);
  });

  it('leaves out the platform’s health and metrics routes, which are not the API', async () => {
    const document = (await (await fetch(`http://127.0.0.1:${gateway.port}/api/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => /^\/(health|metrics)/.test(path))).toEqual([]);
    expect(Object.keys(document.paths)).toContain('/api/v1/items/{code}');
  });
});
