import { createServer, type Server, type Socket, connect } from 'node:net';
import { freePort } from './service-process';

export type ProxyMode = { kind: 'pass' } | { kind: 'latency'; ms: number } | { kind: 'blackhole' } | { kind: 'refuse' };

/**
 * A small TCP proxy put between a service and one dependency (NATS, Redis or PostgreSQL) to add latency, swallow
 * traffic without closing anything (a black hole: the worst kind of partition, since no error arrives), or hang up on
 * every connection (`refuse` after `reset()`: the dependency restarting). Used by the fault tier and by integration
 * tests that take one service's dependency away.
 */
export class FaultProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private mode: ProxyMode = { kind: 'pass' };
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    this.port = await freePort();
    this.server = createServer((client) => this.pipe(client));
    await new Promise<void>((resolveListen) => this.server?.listen(this.port, '127.0.0.1', resolveListen));
    return this;
  }

  set(mode: ProxyMode): void {
    this.mode = mode;
  }

  /** Closes every connection through the proxy (a reset), keeping the listener. */
  reset(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    this.reset();
    await new Promise<void>((resolveClose) => (this.server ? this.server.close(() => resolveClose()) : resolveClose()));
  }

  private pipe(client: Socket): void {
    if (this.mode.kind === 'refuse') {
      client.destroy();
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  private forward(from: Socket, to: Socket): void {
    from.on('data', (chunk) => {
      const mode = this.mode;
      if (mode.kind === 'blackhole') return;
      if (mode.kind === 'latency') setTimeout(() => to.writable && to.write(chunk), mode.ms);
      else if (to.writable) to.write(chunk);
    });
  }
}
