import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * A process the harness started and may fault: SIGKILL, SIGSTOP/SIGCONT, SIGTERM. Only ever signals its own child,
 * so a fault test can never touch the machine's shared PostgreSQL, NATS or Redis. With `restartOnExit`, a process
 * that dies (or is killed) is started again after `restartDelayMs`, as an orchestrator would.
 */
export class ManagedProcess {
  private child?: ChildProcess;
  private output = '';
  private supervising = false;
  private restarts = 0;
  /** Exits the harness did not cause: a service crash is a finding, not noise. */
  readonly unexpectedExits: Array<{ code: number | null; signal: NodeJS.Signals | null }> = [];
  private expectingExit = false;

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: string[],
    private readonly options: SpawnOptions & { restartOnExit?: boolean; restartDelayMs?: number } = {},
  ) {}

  get logs(): string {
    return this.output;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get restartCount(): number {
    return this.restarts;
  }

  get running(): boolean {
    return Boolean(this.child && this.child.exitCode === null && this.child.signalCode === null);
  }

  start(): void {
    this.supervising = Boolean(this.options.restartOnExit);
    this.spawnChild();
  }

  private spawnChild(): void {
    const child = spawn(this.command, this.args, { ...this.options, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.expectingExit = false;
    // Keep the tail only: a long fault run must not grow memory without bound.
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-200_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => {
      if (!this.expectingExit) this.unexpectedExits.push({ code, signal });
      if (this.supervising && this.child === child) {
        this.restarts += 1;
        setTimeout(() => this.supervising && this.child === child && this.spawnChild(), this.options.restartDelayMs ?? 500);
      }
    });
  }

  /** A fault: the process is killed and (if supervised) comes back by itself. Not an unexpected exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL', deliver: () => void = () => this.child?.kill(signal)): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    this.expectingExit = true;
    deliver();
    await exited;
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Ends supervision and the process (SIGTERM, then SIGKILL after `graceMs`). */
  async stop(graceMs = 10_000): Promise<void> {
    this.supervising = false;
    const child = this.child;
    if (!child || !this.running) return;
    this.expectingExit = true;
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
