import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { NatsNamespace } from './nats-namespace';
import { natsServerAddressOf, shownNatsUrl } from './nats-server-address';

export const NATS_OPTIONS = Symbol('NATS_OPTIONS');

// Between attempts to reach NATS, at start-up and after a disconnect.
const RETRY_MS = 1000;
// Shutdown must finish inside the orchestrator's grace period even if NATS goes away while draining.
const DRAIN_TIMEOUT_MS = 5000;

export interface NatsOptions {
  url: string;
  namespace: string;
  /** Shown in the NATS server's connection list, e.g. `items`. */
  service: string;
}

/**
 * The one NATS connection of a process, used for RPC and JetStream alike. It reconnects forever:
 * while NATS is away, requests fail fast (503) and the outbox keeps events until it is back.
 */
@Injectable()
export class NatsClient implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(NatsClient.name);
  readonly namespace: NatsNamespace;
  private connection?: NatsConnection;
  private manager?: JetStreamManager;

  constructor(@Inject(NATS_OPTIONS) private readonly options: NatsOptions) {
    this.namespace = new NatsNamespace(options.namespace);
  }

  private connecting?: Promise<NatsConnection>;
  // Aborted when shutdown begins, so nothing waits any longer for a NATS that is not there.
  private readonly stopping = new AbortController();

  /** Starts connecting without waiting: the process serves /health (not ready) until NATS is reachable. */
  onModuleInit(): void {
    this.connect().catch((error: unknown) => {
      if (!this.stopping.signal.aborted) this.logger.error(`NATS: ${(error as Error).message}`);
    });
  }

  /**
   * Resolves once connected; keeps trying while NATS is unreachable at start-up, and rejects once shutdown has
   * begun (`stopWaiting`), so the RPC server, the relay and the consumers waiting here let the process stop.
   */
  connect(): Promise<NatsConnection> {
    this.connecting ??= this.connectUntilReachable();
    return this.connecting;
  }

  /** Shutdown has begun: a first connection still being waited for is given up. Idempotent. */
  stopWaiting(): void {
    this.stopping.abort(new Error('NATS: not connected, and shutting down'));
  }

  // runService calls stopWaiting as shutdown begins, before any module's hook: a feature module's consumers are
  // destroyed before this (global) module's providers and may be waiting here.
  onModuleDestroy(): void {
    this.stopWaiting();
  }

  // Our own retry loop rather than nats.js's `waitOnFirstConnect`, which cannot be interrupted.
  private async connectUntilReachable(): Promise<NatsConnection> {
    const signal = this.stopping.signal;
    for (let attempt = 1; ; attempt += 1) {
      signal.throwIfAborted();
      const { server, user, pass } = natsServerAddressOf(this.options.url);
      const dialing = connect({
        servers: server,
        user,
        pass,
        name: this.options.service,
        // Once connected, reconnect forever (requests fail fast meanwhile; the outbox keeps events).
        maxReconnectAttempts: -1,
        reconnectTimeWait: RETRY_MS,
        timeout: 5000,
        pingInterval: 10_000,
        // No stack captured for request timeouts and subscription timeouts (the RPC client's own ReplyMux avoids the
        // larger cost: the Error nats.js builds after every successful request).
        noAsyncTraces: true,
      });
      try {
        const connection = await abortable(dialing, signal);
        this.connection = connection;
        void this.watchStatus(connection);
        if (attempt > 1) this.logger.log('NATS connected');
        return connection;
      } catch (error) {
        if (signal.aborted) {
          // A dial still under way may yet succeed: close what it opens.
          void dialing.then((late) => late.close(), () => undefined);
          throw signal.reason;
        }
        if (attempt === 1) this.logger.warn(`NATS at ${this.shownUrl} unreachable (${(error as Error).message}); retrying every ${RETRY_MS} ms`);
        await abortable(delay(RETRY_MS), signal);
      }
    }
  }

  // Logs never show credentials in the URL.
  private get shownUrl(): string {
    return shownNatsUrl(this.options.url);
  }

  get nc(): NatsConnection {
    if (!this.connection) throw new Error('NATS is not connected yet');
    return this.connection;
  }

  get js(): JetStreamClient {
    return jetstream(this.nc, { timeout: 5000 });
  }

  async jsm(): Promise<JetStreamManager> {
    this.manager ??= await jetstreamManager(this.nc, { timeout: 5000 });
    return this.manager;
  }

  /** True while connected; a reconnecting connection is not ready. */
  isConnected(): boolean {
    return Boolean(this.connection && !this.connection.isClosed() && !this.reconnecting);
  }

  private reconnecting = false;

  private async watchStatus(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') {
        this.reconnecting = true;
        this.logger.warn(`NATS disconnected from ${this.shownUrl}; reconnecting`);
      } else if (status.type === 'reconnect') {
        this.reconnecting = false;
        this.logger.log('NATS reconnected');
      } else if (status.type === 'error') {
        this.logger.error(`NATS error: ${String(status.error)}`);
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopWaiting();
    const connection = this.connection;
    this.connection = undefined;
    if (!connection || connection.isClosed()) return;
    // Nothing can be flushed to a server that is away: close at once rather than wait for it to come back.
    if (this.reconnecting) {
      await connection.close();
      return;
    }
    // Drain: stop taking messages, let in-flight ones finish, flush what we published, then close. Bounded, as
    // NATS may go away during the drain.
    const drained = connection.drain().catch(() => connection.close());
    const timedOut = await abortable(drained, AbortSignal.timeout(DRAIN_TIMEOUT_MS)).then(
      () => false,
      () => true,
    );
    if (timedOut) {
      this.logger.warn(`NATS drain took over ${DRAIN_TIMEOUT_MS} ms; closing`);
      await connection.close();
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The work's outcome, or the signal's reason as soon as it is aborted (the work itself carries on). */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
