import { createInbox, type Msg, type NatsConnection, type Subscription, type MsgHdrs } from '@nats-io/transport-node';
import { RpcTimeoutError, RpcUnavailableError } from './rpc-error';

interface Pending {
  subject: string;
  resolve(msg: Msg): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Request/reply over one wildcard reply subscription per connection, as nats.js does internally, but without the
 * Error (with a stack trace) nats.js builds and throws away after every successful request: about 7 % of the
 * gateway's CPU on the tag scan (docs/benchmarks.md). Timeouts and "no responders" become RpcTimeoutError and
 * RpcUnavailableError here.
 */
export class ReplyMux {
  private readonly pending = new Map<string, Pending>();
  private subscription?: Subscription;
  private connection?: NatsConnection;
  private prefix = '';
  private next = 0;

  request(nc: NatsConnection, subject: string, wireSubject: string, data: Uint8Array, options: { timeoutMs: number; headers: MsgHdrs }): Promise<Msg> {
    this.listen(nc);
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new RpcTimeoutError(subject));
      }, options.timeoutMs);
      this.pending.set(token, { subject, resolve, reject, timer });
      try {
        nc.publish(wireSubject, data, { reply: `${this.prefix}${token}`, headers: options.headers });
      } catch (error) {
        this.settle(token)?.reject(new RpcUnavailableError(subject, error));
      }
    });
  }

  private listen(nc: NatsConnection): void {
    if (this.subscription && this.connection === nc && !this.subscription.isClosed()) return;
    this.connection = nc;
    this.prefix = `${createInbox()}.`;
    const subscription = nc.subscribe(`${this.prefix}*`, { callback: (error, msg) => this.dispatch(error, msg) });
    this.subscription = subscription;
    // The connection closed (shutdown): nobody will answer what is still waiting.
    void subscription.closed.then(() => {
      if (this.subscription !== subscription) return;
      for (const token of [...this.pending.keys()]) {
        const pending = this.settle(token);
        pending?.reject(new RpcUnavailableError(pending.subject, new Error('the connection closed')));
      }
    });
  }

  private dispatch(error: Error | null, msg: Msg): void {
    if (error) return;
    const pending = this.settle(msg.subject.slice(this.prefix.length));
    if (!pending) return; // answered after its timeout
    // The server's own answer when no service subscribes to the subject.
    if (msg.data.length === 0 && msg.headers?.code === 503) pending.reject(new RpcUnavailableError(pending.subject));
    else pending.resolve(msg);
  }

  private settle(token: string): Pending | undefined {
    const pending = this.pending.get(token);
    if (!pending) return undefined;
    this.pending.delete(token);
    clearTimeout(pending.timer);
    return pending;
  }
}
