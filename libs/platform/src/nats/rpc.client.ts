import { Injectable } from '@nestjs/common';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { RpcMap, type RpcRequest, type RpcResponse, type RpcSubject } from '@homing/contracts';
import { CORRELATION_HEADER, DEADLINE_HEADER, requestContext } from '../context';
import { injectTraceContext } from '../tracing/propagation';
import { SpanKind, withSpan } from '../tracing/spans';
import { rpcMetrics } from '../metrics/metrics';
import { NatsClient } from './nats.connection';
import { ReplyMux } from './reply-mux';
import { decodeJson, encodeJson, isErrorReply, isRpcErrorBody } from './rpc.codec';
import { RpcError, RpcTimeoutError, RpcUnavailableError } from './rpc-error';

/** ARCHITECTURE §3: an RPC that takes longer than this is answered 504 rather than left hanging. */
export const RPC_TIMEOUT_MS = 2000;

/**
 * How long a call may wait: its own timeout, or, inside the handling of an RPC, what is left of that request's
 * deadline if less, so a nested call never outlives the caller who is waiting for it.
 */
export function callBudgetMs(timeoutMs: number, deadline: number | undefined, now: number): number {
  return deadline === undefined ? timeoutMs : Math.min(timeoutMs, deadline - now);
}

/**
 * The client half of our NATS transport: a typed request/reply call. Subjects, requests and responses are
 * checked against the contracts' RpcMap at compile time; the correlation id, the deadline and the trace context
 * travel in headers.
 */
@Injectable()
export class RpcClient {
  private readonly replies = new ReplyMux();

  constructor(private readonly nats: NatsClient) {}

  request<S extends RpcSubject>(subject: S, payload: RpcRequest<S>, options: { timeoutMs?: number } = {}): Promise<RpcResponse<S>> {
    return withSpan(subject, SpanKind.CLIENT, { 'messaging.system': 'nats', 'rpc.method': subject }, () => this.send(subject, payload, options));
  }

  private async send<S extends RpcSubject>(subject: S, payload: RpcRequest<S>, options: { timeoutMs?: number }): Promise<RpcResponse<S>> {
    const now = Date.now();
    const budgetMs = callBudgetMs(options.timeoutMs ?? RPC_TIMEOUT_MS, requestContext.deadline(), now);
    const headers = natsHeaders();
    headers.set(CORRELATION_HEADER, requestContext.correlationId());
    headers.set(DEADLINE_HEADER, String(now + budgetMs));
    injectTraceContext(headers);
    const started = performance.now();
    let outcome = 'ok';
    try {
      // The request being handled is already past its deadline: its caller has given up, so ask nobody.
      if (budgetMs <= 0) throw new RpcTimeoutError(subject);
      if (!this.nats.isConnected()) throw new RpcUnavailableError(subject);
      const reply = await this.replies.request(this.nats.nc, subject, this.nats.namespace.subject(subject), encodeJson(payload), { timeoutMs: budgetMs, headers });
      const body = decodeJson(reply.data);
      if (isErrorReply(reply.headers)) {
        if (!isRpcErrorBody(body)) throw new Error(`malformed error reply on ${subject}`);
        outcome = String(body.status);
        throw new RpcError(body);
      }
      return RpcMap[subject].response.parse(body) as RpcResponse<S>;
    } catch (error) {
      if (outcome === 'ok') outcome = error instanceof Error ? error.name : 'error';
      throw error;
    } finally {
      rpcMetrics.clientDuration.observe([subject, outcome], (performance.now() - started) / 1000);
    }
  }
}
