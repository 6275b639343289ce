import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { expectEventually } from './eventually';
import { testKeys } from './keys';

const ROOT = resolve(__dirname, '../../..');

// Ports handed to services come from a slice of their own per Jest worker, below the kernel's ephemeral range
// (32768–60999 here): a port from `listen(0)` is free again the moment it is closed, so two workers, or two services
// of one stack, could be handed the same one, and a service that then fails to bind would leave the other's
// /health/ready answering in its name. Within its slice a port is drawn at random, never twice by one process, so
// two test runs on one machine (whose workers share slices) rarely reach for the same port at the same moment.
const PORTS_FROM = 20_000;
const SLICE_SIZE = 1_500;
const SLICES = 8;
const RESERVED = new Set([25_672]); // RabbitMQ's inter-node port
const slice = PORTS_FROM + (Number(process.env.JEST_WORKER_ID ?? '0') % SLICES) * SLICE_SIZE;
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolveFree(true)));
  });
}

/** A free TCP port on localhost, never one this process handed out before. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < SLICE_SIZE; attempt++) {
    const port = slice + Math.floor(Math.random() * SLICE_SIZE);
    if (handedOut.has(port) || RESERVED.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${slice}–${slice + SLICE_SIZE - 1}`);
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

  /** Sends a signal and returns at once: SIGSTOP freezes the process (as a long pause would), SIGCONT thaws it. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    this.child?.kill(signal);
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
