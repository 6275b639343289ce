import { resolve } from 'node:path';
import { expectEventually, FaultProxy, freePort, runServiceCommand, SmtpSink, testKeys } from '@homing/testing';
import { ManagedProcess } from './managed-process';
import { PrivateNats, PrivatePostgres, PrivateRedis } from './private-infra';

const ROOT = resolve(__dirname, '../../..');
export const SERVICES = ['identity', 'items', 'messaging', 'notifications', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];
export type Dependency = 'nats' | 'redis' | 'postgres';

export interface FaultStackOptions {
  /** Put a FaultProxy between every service and these dependencies. */
  proxied?: Dependency[];
  env?: Partial<Record<ServiceName, NodeJS.ProcessEnv>>;
}

/**
 * The whole product on private infrastructure: its own nats-server (JetStream on disk), redis-server (AOF) and
 * PostgreSQL, an SMTP sink, and every built service as its own supervised process (restarted when it exits, as
 * Kubernetes would). Everything here may be killed, stopped or partitioned; nothing shared is ever touched.
 */
export class FaultStack {
  readonly services = new Map<ServiceName, ManagedProcess>();
  readonly ports = new Map<ServiceName, number>();
  readonly proxies = new Map<Dependency, FaultProxy>();

  envOf!: (service: ServiceName) => NodeJS.ProcessEnv;

  private constructor(
    readonly nats: PrivateNats,
    readonly redis: PrivateRedis,
    readonly postgres: PrivatePostgres,
    readonly mail: SmtpSink,
  ) {}

  static async start(options: FaultStackOptions = {}): Promise<FaultStack> {
    const [nats, redis, postgres, mail] = await Promise.all([PrivateNats.start(), PrivateRedis.start(), PrivatePostgres.start(), new SmtpSink().start()]);
    const stack = new FaultStack(nats, redis, postgres, mail);
    for (const dependency of options.proxied ?? []) {
      const target = { nats: nats.port, redis: redis.port, postgres: postgres.port }[dependency];
      stack.proxies.set(dependency, await new FaultProxy('127.0.0.1', target).start());
    }
    for (const service of SERVICES) stack.ports.set(service, await freePort());
    const gatewayPort = stack.ports.get('gateway') as number;
    const envOf = (service: ServiceName): NodeJS.ProcessEnv => ({
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ...testKeys(),
      NATS_URL: `nats://127.0.0.1:${stack.portOf('nats')}`,
      REDIS_URL: `redis://127.0.0.1:${stack.portOf('redis')}`,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${stack.portOf('postgres')}/postgres`,
      SMTP_URL: mail.url,
      // Activations' welcome mails at once: F2 and F5 count them.
      WELCOME_MAIL_DELAY_MINUTES: '0',
      PUBLIC_URL: `http://localhost:${gatewayPort}`,
      // Every client of the fault tests is 127.0.0.1: the per-address limits would measure themselves, not the faults.
      TRUSTED_PROXIES: '127.0.0.1,::1',
      ...options.env?.[service],
      PORT: String(stack.ports.get(service)),
    });
    stack.envOf = envOf;
    try {
      await stack.startServices();
    } catch (error) {
      // A stack that did not come up stops what it started: supervised processes would otherwise run on, restarting.
      await stack.stop().catch(() => undefined);
      throw error;
    }
    return stack;
  }

  private async startServices(): Promise<void> {
    const envOf = this.envOf;
    // Each service migrates its own schema: side by side.
    await Promise.all(SERVICES.filter((name) => name !== 'gateway').map((service) => runServiceCommand(service, ['migrate'], envOf(service))));
    for (const service of SERVICES) {
      this.services.set(
        service,
        new ManagedProcess(service, process.execPath, [resolve(ROOT, 'dist/apps', service, 'main.js')], {
          cwd: ROOT,
          env: { ...process.env, ...envOf(service) },
          restartOnExit: true,
          restartDelayMs: 500,
        }),
      );
    }
    for (const service of SERVICES) this.service(service).start();
    await Promise.all(SERVICES.map((service) => this.waitReady(service)));
  }

  /** The port services dial for a dependency: its proxy's if proxied. */
  private portOf(dependency: Dependency): number {
    return this.proxies.get(dependency)?.port ?? { nats: this.nats.port, redis: this.redis.port, postgres: this.postgres.port }[dependency];
  }

  get api(): string {
    return `http://127.0.0.1:${this.ports.get('gateway')}/api/v1`;
  }

  service(name: ServiceName): ManagedProcess {
    const service = this.services.get(name);
    if (!service) throw new Error(`no service ${name}`);
    return service;
  }

  async waitReady(name: ServiceName, timeoutMs = 60_000): Promise<void> {
    await expectEventually(
      async () => {
        const response = await fetch(`http://127.0.0.1:${this.ports.get(name)}/health/ready`);
        if (response.status !== 200) throw new Error(`${name} not ready: ${response.status}`);
      },
      { timeoutMs, intervalMs: 250 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- ${name} log tail ---\n${this.service(name).logs.slice(-4000)}`);
    });
  }

  /** Processes that exited without the harness killing them: crashes. */
  crashes(): Array<{ service: ServiceName; code: number | null; signal: NodeJS.Signals | null }> {
    return SERVICES.flatMap((service) => this.service(service).unexpectedExits.map((exit) => ({ service, ...exit })));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.services.values()].map((service) => service.stop()));
    await Promise.all([...this.proxies.values()].map((proxy) => proxy.stop()));
    await Promise.all([this.nats.stop(), this.redis.stop(), this.postgres.stop(), this.mail.stop()]);
  }
}
