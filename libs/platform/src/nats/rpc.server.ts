import { Logger } from '@nestjs/common';
import { CustomTransportStrategy, Server } from '@nestjs/microservices';
import { context, type Span } from '@opentelemetry/api';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { ResponseCode, RpcMap, toValidationMap, type RpcErrorBody, type RpcSubject } from '@homing/contracts';
import { isForeignKeyViolation, isTransientConflict, isUnstorableText, scrubQueryError } from '../database/query-error';
import { acceptCorrelationId, acceptDeadline, CORRELATION_HEADER, DEADLINE_HEADER, requestContext } from '../context';
import { extractTraceContext } from '../tracing/propagation';
import { SpanKind, withSpan } from '../tracing/spans';
import { rpcMetrics } from '../metrics/metrics';
import type { NatsClient } from './nats.connection';
import type { RpcHandlers } from './rpc-handler.decorator';
import { decodeJson, encodeJson, errorReplyHeaders } from './rpc.codec';
import { isDependencyUnavailable, RpcError, RpcTimeoutError } from './rpc-error';

/** The same default as `RPC_MAX_IN_FLIGHT` (config), for servers built without configuration. */
export const DEFAULT_RPC_MAX_IN_FLIGHT = 256;

export interface NatsRpcServerOptions {
  /** Handlers running at once; beyond it, requests are answered 503 SERVICE_BUSY at once (`RPC_MAX_IN_FLIGHT`). */
  maxInFlight?: number;
}

// Answers that need no handler, encoded once: they are sent when the service can least afford work.
const BUSY_REPLY = encodeJson({
  status: 503,
  response_code: ResponseCode.SERVICE_BUSY,
  message: 'The service is busy. Try again shortly.',
} satisfies RpcErrorBody);
const EXPIRED_REPLY = encodeJson({
  status: 504,
  response_code: ResponseCode.SERVICE_TIMEOUT,
  message: 'The request reached the service after its deadline.',
} satisfies RpcErrorBody);

/**
 * Our Nest transport for request/reply on core NATS. `@RpcHandler('items.rpc.get-public')` handlers
 * (`rpcHandlersOf`) are subscribed in a queue group named after the service, so replicas share the load, and called
 * straight, each request in its own context and span. Requests are validated against the contracts' RpcMap before a
 * handler runs; errors go back as `{status, response_code, message}` with an error header, never as a stack trace.
 *
 * Load is shed before it reaches a handler: a request whose deadline (header) has passed is answered 504 without
 * running, since its caller has given up; beyond `maxInFlight` handlers at once, requests are answered 503
 * SERVICE_BUSY at once rather than queueing past their callers' timeouts. Both count in
 * `homing_rpc_server_duration_seconds` with outcome `expired` or `busy`.
 */
export class NatsRpcServer extends Server implements CustomTransportStrategy {
  protected override readonly logger = new Logger(NatsRpcServer.name);
  private readonly subscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly maxInFlight: number;

  constructor(
    private readonly nats: NatsClient,
    private readonly queueGroup: string,
    private readonly handlers: RpcHandlers,
    options: NatsRpcServerOptions = {},
  ) {
    super();
    this.maxInFlight = options.maxInFlight ?? DEFAULT_RPC_MAX_IN_FLIGHT;
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      // Nest's @MessagePattern handlers would go unanswered: handlers are declared with @RpcHandler.
      if (this.messageHandlers.size > 0) throw new Error(`@MessagePattern handlers, which this transport does not call (use @RpcHandler): ${[...this.messageHandlers.keys()].join(', ')}`);
      // Every subject answered must be in the contracts, so its requests are validated and its callers typed.
      const patterns: string[] = [...this.handlers.keys()];
      const uncontracted = patterns.filter((pattern) => !(pattern in RpcMap));
      if (uncontracted.length > 0) throw new Error(`RPC handlers without a contract in RpcMap: ${uncontracted.join(', ')}`);
      const nc = await this.nats.connect();
      for (const pattern of patterns) {
        const subject = this.nats.namespace.subject(pattern);
        const subscription = nc.subscribe(subject, {
          queue: this.queueGroup,
          callback: (error, msg) => {
            if (error) {
              this.logger.error(`subscription to ${subject} failed: ${error.message}`);
              return;
            }
            this.receive(pattern, msg);
          },
        });
        this.subscriptions.push(subscription);
      }
      callback();
    } catch (error) {
      callback(error);
    }
  }

  /** Stops taking requests, then waits for the ones being handled to be answered. */
  async close(): Promise<void> {
    await Promise.allSettled(this.subscriptions.map((subscription) => subscription.drain()));
    this.subscriptions.length = 0;
    await Promise.allSettled([...this.inFlight]);
  }

  on(): never {
    throw new Error('NatsRpcServer emits no events');
  }

  unwrap<T>(): T {
    return this.nats.nc as T;
  }

  private receive(pattern: string, msg: Msg): void {
    // Checked on arrival, the moment the process gets to the request: if it was too busy to read it in time (CPU,
    // a GC pause), nothing is left to do for a caller who gave up, least of all touch the database.
    const deadline = acceptDeadline(msg.headers?.get(DEADLINE_HEADER));
    if (deadline !== undefined && deadline <= Date.now()) return this.shed(pattern, msg, 'expired', EXPIRED_REPLY);
    if (this.inFlight.size >= this.maxInFlight) return this.shed(pattern, msg, 'busy', BUSY_REPLY);
    const work = this.handle(pattern, msg, deadline).finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  private shed(pattern: string, msg: Msg, outcome: 'expired' | 'busy', reply: Uint8Array): void {
    rpcMetrics.serverDuration.observe([pattern, outcome], 0);
    msg.respond(reply, { headers: errorReplyHeaders() });
  }

  private async handle(pattern: string, msg: Msg, deadline: number | undefined): Promise<void> {
    const correlationId = acceptCorrelationId(msg.headers?.get(CORRELATION_HEADER));
    const attributes = { 'messaging.system': 'nats', 'rpc.method': pattern };
    await context.with(extractTraceContext(msg.headers), () =>
      requestContext.run({ correlationId, causationId: null, deadline, work: pattern }, () =>
        withSpan(pattern, SpanKind.SERVER, attributes, (span) => this.answer(pattern, msg, span)),
      ),
    );
  }

  private async answer(pattern: string, msg: Msg, span: Span): Promise<void> {
    const started = performance.now();
    let outcome = 'ok';
    try {
      const payload = this.parse(pattern, msg.data);
      msg.respond(encodeJson(await this.run(pattern, payload)));
    } catch (error) {
      const body = this.toErrorBody(pattern, error);
      outcome = String(body.status);
      span.setAttribute('rpc.status', outcome);
      msg.respond(encodeJson(body), { headers: errorReplyHeaders() });
    } finally {
      rpcMetrics.serverDuration.observe([pattern, outcome], (performance.now() - started) / 1000);
    }
  }

  private async run(pattern: string, payload: unknown): Promise<unknown> {
    const handler = this.handlers.get(pattern as RpcSubject);
    if (!handler) throw new Error(`no handler for ${pattern}`);
    return (await handler(payload as never)) ?? null;
  }

  private parse(pattern: string, data: Uint8Array): unknown {
    let raw: unknown;
    try {
      raw = decodeJson(data);
    } catch {
      throw new RpcError({ status: 400, response_code: ResponseCode.MALFORMED_REQUEST, message: 'The request is not valid JSON.' });
    }
    const parsed = RpcMap[pattern as RpcSubject].request.safeParse(raw);
    if (!parsed.success) throw RpcError.validation(toValidationMap(parsed.error, raw));
    return parsed.data;
  }

  private toErrorBody(pattern: string, thrown: unknown): RpcErrorBody {
    if (thrown instanceof RpcError) return thrown.body;
    // Whatever is logged below must not carry a failed query's parameters (e-mail addresses, hashes).
    const error = scrubQueryError(thrown);
    // A call this handler made ran out of time (or of the request's deadline): the answer is late, not a bug.
    if (error instanceof RpcTimeoutError) {
      return { status: 504, response_code: ResponseCode.SERVICE_TIMEOUT, message: 'A service took too long to answer. Try again shortly.' };
    }
    if (isDependencyUnavailable(error)) {
      this.logger.warn(`${pattern}: a dependency is unavailable: ${(error as Error).message}`);
      return { status: 503, response_code: ResponseCode.SERVICE_UNAVAILABLE, message: 'A service is temporarily unavailable. Try again shortly.' };
    }
    // A row written for something deleted since the handler read it (an account erased while its owner logs in or
    // asks for a code, an item deleted while its photo uploads): what the request is about is gone, not a bug.
    if (isForeignKeyViolation(error)) {
      this.logger.warn(`${pattern}: what the request refers to was deleted meanwhile: ${(error as Error).message}`);
      return { status: 404, response_code: ResponseCode.NOT_FOUND, message: 'What this request refers to no longer exists.' };
    }
    // Our code takes its locks in one order; a deadlock or a lock timeout left is a collision with another request,
    // rolled back whole: a moment later the same request goes through.
    if (isTransientConflict(error)) {
      this.logger.warn(`${pattern}: gave way to a concurrent change: ${(error as Error).message}`);
      return { status: 503, response_code: ResponseCode.SERVICE_UNAVAILABLE, message: 'Another change to the same thing came at the same moment. Try again.' };
    }
    if (isUnstorableText(error)) {
      this.logger.warn(`${pattern}: the request holds text that cannot be stored: ${(error as Error).message}`);
      return { status: 400, response_code: ResponseCode.MALFORMED_REQUEST, message: 'The request holds characters that cannot be stored (such as NUL).' };
    }
    this.logger.error({ err: error }, `${pattern} failed`);
    return { status: 500, response_code: ResponseCode.INTERNAL_ERROR, message: 'Our server seems to be having some troubles.' };
  }
}
