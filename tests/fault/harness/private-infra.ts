import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import Redis from 'ioredis';
import { Client } from 'pg';
import { expectEventually, freePort } from '@homing/testing';
import { ManagedProcess } from './managed-process';

// Private instances of the three dependencies, on free ports and in temporary directories, started and faulted by
// the harness alone (ARCHITECTURE §11). Not supervised: a fault test decides when a dependency comes back.

export const NATS_SERVER = '/usr/sbin/nats-server';
export const REDIS_SERVER = '/usr/bin/redis-server';

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  return version ? join(root, version, 'bin') : undefined;
}

export const privateInfraAvailable = (): boolean => existsSync(NATS_SERVER) && existsSync(REDIS_SERVER) && Boolean(postgresBin());

export class PrivateNats {
  readonly process: ManagedProcess;
  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {
    this.process = new ManagedProcess('nats-server', NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir]);
  }

  static async start(): Promise<PrivateNats> {
    const nats = new PrivateNats(await freePort(), mkdtempSync(join(tmpdir(), 'homing-fault-nats-')));
    await nats.restart();
    return nats;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts it again on the same port and store (after a kill): JetStream recovers its streams from disk. */
  async restart(): Promise<void> {
    this.process.start();
    await expectEventually(async () => (await connect({ servers: this.url, timeout: 1000, maxReconnectAttempts: 0 })).close(), { timeoutMs: 20_000 });
  }

  async stop(): Promise<void> {
    await this.process.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Redis as production runs it for BullMQ: AOF on, never evicting. */
export class PrivateRedis {
  readonly process: ManagedProcess;
  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {
    this.process = new ManagedProcess('redis-server', REDIS_SERVER, [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec',
      '--maxmemory-policy', 'noeviction', '--save', '',
    ]);
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort(), mkdtempSync(join(tmpdir(), 'homing-fault-redis-')));
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    this.process.start();
    await expectEventually(
      async () => {
        const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        try {
          await client.connect();
          // Loading the AOF answers LOADING until done.
          expect(await client.ping()).toBe('PONG');
        } finally {
          client.disconnect();
        }
      },
      { timeoutMs: 20_000 },
    );
  }

  async stop(): Promise<void> {
    await this.process.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A PostgreSQL cluster of its own (`initdb`), run as the `postgres` user when the tests run as root. */
export class PrivatePostgres {
  process!: ManagedProcess;
  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly bin: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBin();
    if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
    const dir = mkdtempSync(join(tmpdir(), 'homing-fault-pg-'));
    const postgres = new PrivatePostgres(await freePort(), dir, bin);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(dir, uid('postgres'), uid('postgres'));
    const run = (command: string, args: string[]) =>
      asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { stdio: 'pipe' }) : execFileSync(join(bin, command), args, { stdio: 'pipe' });
    run('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    writeFileSync(join(dir, 'data', 'postgresql.auto.conf'), 'fsync = off\nmax_connections = 200\n', { flag: 'a' });
    postgres.process = new ManagedProcess(
      'postgres',
      asRoot ? 'runuser' : join(bin, 'postgres'),
      [...(asRoot ? ['-u', 'postgres', '--', join(bin, 'postgres')] : []), '-D', join(dir, 'data'), '-p', String(postgres.port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'],
    );
    await postgres.restart();
    return postgres;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async restart(): Promise<void> {
    this.process.start();
    await expectEventually(
      async () => {
        const client = new Client({ connectionString: this.url });
        await client.connect();
        await client.end();
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  }

  /**
   * A crash: SIGQUIT to the postmaster (its pid from postmaster.pid, not the `runuser` wrapper) is PostgreSQL's
   * immediate stop: every backend dies, nothing is flushed, the next start runs crash recovery.
   */
  async crash(): Promise<void> {
    const postmaster = Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    await this.process.kill('SIGKILL', () => process.kill(postmaster, 'SIGQUIT'));
  }

  async stop(): Promise<void> {
    await this.process.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function uid(user: string): number {
  return Number(execFileSync('id', ['-u', user]).toString().trim());
}
