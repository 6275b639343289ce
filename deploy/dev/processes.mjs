// Child processes for `npm start`: each service runs as its own process (as it does in production), its output
// shown line by line behind its name, and all of them stopped together.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

const COLORS = [36, 33, 32, 35, 34, 96, 93, 92];

/** ANSI colour only for a terminal that wants it (https://no-color.org). */
export const useColor = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

export function paint(text, code) {
  return useColor ? `\u001b[${code}m${text}\u001b[0m` : text;
}

function isRunning(child) {
  return child.exitCode === null && child.signalCode === null;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export class ProcessGroup {
  /** @param {string[]} names every name that will be shown, so the prefixes line up from the first line on */
  constructor(names) {
    this.width = Math.max(...names.map((name) => name.length));
    this.colors = new Map(names.map((name, index) => [name, COLORS[index % COLORS.length]]));
    /** @type {Set<{name: string, child: import('node:child_process').ChildProcess, closed: Promise<void>}>} */
    this.running = new Set();
  }

  label(name) {
    return paint(`${name.padEnd(this.width)} |`, this.colors.get(name) ?? 37);
  }

  /** Prints a line of our own behind a name, like the children's. */
  log(name, line) {
    process.stdout.write(`${this.label(name)} ${line}\n`);
  }

  /** Every line the stream gives, behind the name; resolves when the stream ends. */
  prefix(name, stream, sink) {
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    lines.on('line', (line) => sink.write(`${this.label(name)} ${line}\n`));
    return new Promise((resolve) => lines.once('close', resolve));
  }

  /**
   * Starts a child. Its output is prefixed, unless `inherit` (for tools like nx that format their own), or
   * collected as well with `capture` (for commands whose stdout is their answer).
   * `onExit(code, signal)` is called once, after its output is flushed.
   */
  spawn(name, command, args, { env, cwd, inherit = false, capture = false, onExit } = {}) {
    const child = spawn(command, args, { env, cwd, stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    const entry = { name, child, stdout: '' };
    const flushed = [];
    if (!inherit) {
      if (capture) child.stdout.on('data', (chunk) => (entry.stdout += chunk));
      flushed.push(this.prefix(name, child.stdout, process.stdout), this.prefix(name, child.stderr, process.stderr));
    }
    const exited = new Promise((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    // 'exit' can come before the last output lines are read: report the end only after both.
    entry.closed = Promise.all([exited, ...flushed]).then(([outcome]) => {
      this.running.delete(entry);
      onExit?.(outcome.code, outcome.signal, outcome.error);
      return outcome;
    });
    this.running.add(entry);
    return entry;
  }

  /** Runs a command to its end; resolves with its exit code and (with `capture`) its stdout. */
  async run(name, command, args, options = {}) {
    const entry = this.spawn(name, command, args, options);
    const { code, signal, error } = await entry.closed;
    return { code, signal, error, stdout: entry.stdout };
  }

  /**
   * SIGTERM to each running child (but those named in `except`), then SIGKILL to any still running after
   * `timeoutMs`; resolves when they are gone.
   */
  async stop({ timeoutMs, except = [] }) {
    const targets = [...this.running].filter((entry) => !except.includes(entry.name));
    for (const { child } of targets) if (isRunning(child)) child.kill('SIGTERM');
    const allClosed = Promise.all(targets.map((entry) => entry.closed));
    const finished = await Promise.race([allClosed.then(() => true), sleep(timeoutMs).then(() => false)]);
    if (finished) return [];
    const stuck = targets.filter(({ child }) => isRunning(child));
    for (const { child } of stuck) child.kill('SIGKILL');
    await Promise.race([allClosed, sleep(2_000)]);
    return stuck.map((entry) => entry.name);
  }

  /** SIGKILL to every child at once: for the second Ctrl+C, and for our own crash, so no service is left behind. */
  killAll() {
    for (const { child } of this.running) if (isRunning(child)) child.kill('SIGKILL');
  }
}

/** The ports among these that something already listens on (tried the way the services bind: all interfaces). */
export async function busyPorts(ports) {
  const busy = [];
  for (const port of ports) {
    const free = await new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
    });
    if (!free) busy.push(port);
  }
  return busy;
}
