import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { ReplyMux } from './reply-mux';
import { decodeJson } from './rpc.codec';
import { RpcTimeoutError, RpcUnavailableError } from './rpc-error';

/** JetStream's acknowledgement of a stored message; `duplicate` when its msgID was stored already. */
export interface StreamAck {
  stream: string;
  seq: number;
  duplicate?: boolean;
}

/**
 * Why a message was not stored: no stream takes its subject (or JetStream is away: NATS answers the same), no
 * acknowledgement in time, JetStream unavailable (its own 503: "temporarily unavailable", "insufficient resources"), a
 * refusal by the stream, or the client could not send it at all (over the server's size limit, a closed connection).
 */
export type JetStreamPublishFailure = 'no-stream' | 'no-acknowledgement' | 'unavailable' | 'refused' | 'not-sent';

/**
 * Whether a failed publish says something about the message itself (its subject, its size, what the stream thinks of
 * it), rather than about JetStream's state at the time (no answer in time, or JetStream saying it is unavailable).
 * One exception reads as the message's: a connection that closed with the publish in flight is `not-sent`, like a
 * message over the size limit. That is rare, and the relay then counts one refusal and offers the row again in seconds,
 * far from the ten over an hour that set a row aside.
 */
export function isRefusalOfTheMessage(error: unknown): boolean {
  return !(error instanceof JetStreamPublishError && (error.failure === 'no-acknowledgement' || error.failure === 'unavailable'));
}

/** JetStream did not store the message; `failure` says how it was not. */
export class JetStreamPublishError extends Error {
  constructor(
    message: string,
    readonly failure: JetStreamPublishFailure,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = 'JetStreamPublishError';
  }
}

const DEFAULT_TIMEOUT_MS = 5000;

/**
 * Publishes to a JetStream stream and waits for its acknowledgement, as `jetstream(nc).publish` does (a request with
 * the `Nats-Msg-Id` header, answered by the stream's ack), over one reply subscription (ReplyMux). nats.js builds an
 * Error with a stack after every request it completes, and a timer and a request object besides: measured on one
 * core, 40–53 µs of the publisher's CPU a message against 10–20 µs here (docs/benchmarks.md, 2026-11-28). Every
 * event of every service goes through the outbox relay's publish.
 */
export class JetStreamPublisher {
  private readonly replies = new ReplyMux();

  async publish(nc: NatsConnection, subject: string, data: Uint8Array, options: { msgID: string; headers?: MsgHdrs; timeoutMs?: number }): Promise<StreamAck> {
    const headers = options.headers ?? natsHeaders();
    headers.set('Nats-Msg-Id', options.msgID);
    let reply;
    try {
      reply = await this.replies.request(nc, subject, subject, data, { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, headers });
    } catch (error) {
      if (error instanceof RpcUnavailableError) {
        // With a cause, nats.js would not send it (its size over the server's limit, the connection closed); without
        // one, the server answered that nobody takes the subject.
        if (error.cause instanceof Error) throw new JetStreamPublishError(`${subject} could not be sent: ${error.cause.message}`, 'not-sent', error);
        throw new JetStreamPublishError(`no stream stores ${subject}`, 'no-stream', error);
      }
      if (error instanceof RpcTimeoutError) throw new JetStreamPublishError(`no acknowledgement for ${subject} in time`, 'no-acknowledgement', error);
      throw error;
    }
    let ack: Partial<StreamAck> & { error?: { code?: number; err_code?: number; description?: string } };
    try {
      ack = (decodeJson(reply.data) ?? {}) as typeof ack;
    } catch (error) {
      throw new JetStreamPublishError(`an answer for ${subject} that is not JSON`, 'refused', error);
    }
    if (ack.error) {
      const reason = `${ack.error.description ?? 'no reason given'} (${ack.error.code ?? '?'}/${ack.error.err_code ?? '?'})`;
      // 503 is JetStream's own state (10008 temporarily unavailable, 10023 insufficient resources), not the message's.
      if (ack.error.code === 503) throw new JetStreamPublishError(`JetStream is unavailable for ${subject}: ${reason}`, 'unavailable');
      throw new JetStreamPublishError(`JetStream refused ${subject}: ${reason}`, 'refused');
    }
    if (typeof ack.stream !== 'string' || typeof ack.seq !== 'number') throw new JetStreamPublishError(`an answer for ${subject} that is not an acknowledgement`, 'refused');
    return { stream: ack.stream, seq: ack.seq, ...(ack.duplicate ? { duplicate: true } : {}) };
  }
}
