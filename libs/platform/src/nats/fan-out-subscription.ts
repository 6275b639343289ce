import { Logger } from '@nestjs/common';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { NatsNamespace } from './nats-namespace';

// Before a subscription the server ended (a permissions violation, say) is asked for again.
const RESUBSCRIBE_MS = 1000;

/** Why messages may have been missed. */
export type FanOutGap = 'disconnect' | 'reconnect' | 'slow-consumer' | 'subscription-error' | 'unreadable-message';

export interface FanOutListener {
  /**
   * One message of one of the subjects. A throw (a malformed event, one of a contract this replica does not know) is
   * logged and reported as a gap: what the message changed is unknown, so what was learnt before may be stale.
   */
  onMessage(msg: Msg, subject: string): void;
  /** Messages may have been missed: forget whatever was learnt from them, as it may be stale. */
  onGap(gap: FanOutGap): void;
  /** Every subscription is in place on the server, at first and again after a gap: from now on every message is heard. */
  onLive?(): void;
}

/** What a fan-out needs of the process's NATS client. */
export interface FanOutNats {
  connect(): Promise<NatsConnection>;
  readonly namespace: NatsNamespace;
}

/**
 * Every replica hears every message of some subjects: plain core NATS subscriptions, no queue group, nothing durable.
 * For what a process keeps in memory from events (caches, watermarks): core NATS drops messages while disconnected,
 * when a subscriber falls behind, or when the server ends a subscription, so on any of these the owner is told
 * (`onGap`) and forgets, and is told again once every subscription is back in place (`onLive`).
 */
export class FanOutSubscription {
  private readonly logger: Logger;
  private readonly subscriptions = new Map<string, Subscription>();
  private connection?: NatsConnection;
  private closed = false;
  private isLive = false;
  // Rises with every gap: a confirmation started before the latest gap does not count.
  private gaps = 0;

  private constructor(
    private readonly nats: FanOutNats,
    private readonly subjects: readonly string[],
    private readonly listener: FanOutListener,
    name: string,
    private readonly resubscribeMs: number,
  ) {
    this.logger = new Logger(name);
  }

  /**
   * Subscribes once NATS is connected, without waiting for it (until then the owner is simply not live). `subjects`
   * are contract subjects; the namespace is added here.
   */
  static open(nats: FanOutNats, subjects: readonly string[], listener: FanOutListener, options: { name: string; resubscribeMs?: number }): FanOutSubscription {
    const fanOut = new FanOutSubscription(nats, subjects, listener, options.name, options.resubscribeMs ?? RESUBSCRIBE_MS);
    nats.connect().then(
      (connection) => fanOut.start(connection),
      () => undefined,
    );
    return fanOut;
  }

  /** Whether every message is being heard now (subscriptions confirmed by the server, no gap since). */
  get live(): boolean {
    return this.isLive;
  }

  close(): void {
    this.closed = true;
    this.isLive = false;
    for (const subscription of this.subscriptions.values()) subscription.unsubscribe();
    this.subscriptions.clear();
  }

  private start(connection: NatsConnection): void {
    if (this.closed) return;
    this.connection = connection;
    for (const subject of this.subjects) this.subscribe(subject);
    void this.confirm();
    void this.followConnection(connection);
  }

  private subscribe(subject: string): void {
    const connection = this.connection as NatsConnection;
    const subscription = connection.subscribe(this.nats.namespace.subject(subject), {
      callback: (error, msg) => {
        if (error) return this.failed(subject, subscription, error);
        try {
          this.listener.onMessage(msg, subject);
        } catch (failure) {
          // Skipping it silently would leave a cache answering from before whatever change it announced. Every
          // subscription is still in place, so the owner is live again at the next confirmed flush.
          this.logger.warn(`A ${subject} message could not be read (${(failure as Error).message}): forgetting what was learnt`);
          this.gap('unreadable-message');
          void this.confirm();
        }
      },
    });
    this.subscriptions.set(subject, subscription);
  }

  // nats.js ends a subscription it reports an error on: nothing more comes on it until it is made again.
  private failed(subject: string, subscription: Subscription, error: Error): void {
    if (this.subscriptions.get(subject) === subscription) this.subscriptions.delete(subject);
    this.logger.warn(`Subscription to ${subject} failed (${error.message}); subscribing again`);
    this.gap('subscription-error');
    setTimeout(() => {
      if (this.closed || this.subscriptions.has(subject) || !this.connection || this.connection.isClosed()) return;
      this.subscribe(subject);
      void this.confirm();
    }, this.resubscribeMs).unref();
  }

  private gap(gap: FanOutGap): void {
    this.gaps += 1;
    this.isLive = false;
    this.listener.onGap(gap);
  }

  // The server has the subscriptions once a flush comes back: only from then on is every message heard.
  private async confirm(): Promise<void> {
    const gaps = this.gaps;
    try {
      await this.connection?.flush();
    } catch {
      // Disconnected meanwhile: the reconnect confirms again.
      return;
    }
    if (this.closed || this.isLive || gaps !== this.gaps || this.subscriptions.size < this.subjects.length) return;
    this.isLive = true;
    this.listener.onLive?.();
  }

  // Core NATS delivers nothing while disconnected; the client renews the subscriptions on reconnect.
  private async followConnection(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (this.closed) break;
      if (status.type === 'disconnect') this.gap('disconnect');
      else if (status.type === 'reconnect' || status.type === 'slowConsumer') {
        // A slow consumer's dropped messages, like a reconnect, leave a hole: start again from empty.
        this.gap(status.type === 'reconnect' ? 'reconnect' : 'slow-consumer');
        void this.confirm();
      }
    }
  }
}
