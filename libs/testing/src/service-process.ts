import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { expectEventually } from './eventually';
import { testKeys } from './keys';

const ROOT = resolve(__dirname, '../../..');

/** A free TCP port on localhost. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** Runs a built service's command (`migrate`, `seed-tags`) and resolves with its stdout; rejects on a non-zero exit. */
export function runServiceCommand(app: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolveOutput, reject) => {
    const child = spawn(process.execPath, [resolve(ROOT, 'dist/apps', app, 'main.js'), ...args], { env: { ...process.env, ...testKeys(), ...env }, cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolveOutput(stdout) : reject(new Error(`${app} ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

/** A built service (dist/apps/<app>/main.js) running as its own process, as in production. */
export class ServiceProcess {
  private child?: ChildProcess;
  private output = '';

  constructor(
    readonly app: string,
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get logs(): string {
    return this.output;
  }

  /** Starts the process and waits until /health/ready (or, with `until: 'live'`, /health/live) answers 200. */
  async start(timeoutMs = 60_000, { until = 'ready' }: { until?: 'ready' | 'live' } = {}): Promise<void> {
    const child = spawn(process.execPath, [resolve(ROOT, 'dist/apps', this.app, 'main.js')], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...testKeys(), ...this.env, PORT: String(this.port) },
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk) => (this.output += chunk));
    child.stderr?.on('data', (chunk) => (this.output += chunk));
    await expectEventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`${this.app} exited with ${child.exitCode}:\n${this.output}`);
        const response = await fetch(`http://127.0.0.1:${this.port}/health/${until}`);
        if (response.status !== 200) throw new Error(`${this.app} not ${until}: ${response.status} ${await response.text()}`);
      },
      { timeoutMs, intervalMs: 200 },
    );
  }

  /** SIGTERM, then wait for the exit; resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
    child.kill(signal);
    return exited;
  }
}
