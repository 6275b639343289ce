import { Controller } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { trace } from '@opentelemetry/api';
import { node, tracing } from '@opentelemetry/sdk-node';
import { ResponseCode, type RpcRequest, type RpcResponse } from '@homing/contracts';
import { expectEventually, isolatedName, testInfra } from '@homing/testing';
import { testConfig } from './test-config';
import {
  metricsRegistry,
  NatsClient,
  NatsRpcServer,
  PlatformModule,
  requestContext,
  RpcClient,
  RpcError,
  RpcHandler,
  rpcHandlersOf,
  RpcTimeoutError,
  RpcUnavailableError,
  type NatsRpcServerOptions,
} from '../src';

// A real tracer provider with an in-memory exporter, so the test sees the spans a service would export.
const exporter = new tracing.InMemorySpanExporter();
new node.NodeTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] }).register();

let slowReplyMs = 0;
// How long the `nested` handler works before it calls on, and what that call came to.
let nestedDelayMs = 0;
let nestedOutcome: { error?: unknown; elapsedMs: number } | undefined;
// Handler invocations by request code: what ran, as opposed to what was answered.
const invocations = new Map<string, number>();
const invoked = (code: string) => invocations.get(code) ?? 0;

const OWNER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller()
class ItemsDouble {
  constructor(private readonly rpc: RpcClient) {}

  @RpcHandler('items.rpc.get-owned')
  async getByCode(request: RpcRequest<'items.rpc.get-owned'>): Promise<RpcResponse<'items.rpc.get-owned'>> {
    invocations.set(request.code, invoked(request.code) + 1);
    if (request.code === 'missing') throw RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
    if (request.code === 'bug') throw new TypeError('cannot read properties of undefined');
    // The deadline this request is handled under, as the server took it from the caller's header.
    if (request.code === 'deadline') return itemNamed(String(requestContext.deadline()));
    // The correlation id the handler runs under, as the server took it from the caller's header.
    if (request.code === 'correlation') return itemNamed(requestContext.correlationId(), request.code);
    if (request.code === 'nested') return itemNamed(`${requestContext.deadline()}/${await this.callOn()}`);
    await sleep(slowReplyMs);
    // The trace id the handler runs under, so the caller can check the trace crossed NATS.
    return itemNamed(trace.getActiveSpan()?.spanContext().traceId ?? null, request.code);
  }

  // A call a handler makes to another service while handling a request (items → identity during a claim).
  private async callOn(): Promise<string | null> {
    await sleep(nestedDelayMs);
    const started = Date.now();
    try {
      const reply = await this.rpc.request('items.rpc.get-owned', { code: 'deadline', ownerUserId: OWNER });
      nestedOutcome = { elapsedMs: Date.now() - started };
      return reply.name;
    } catch (error) {
      nestedOutcome = { error, elapsedMs: Date.now() - started };
      throw error;
    }
  }
}

function itemNamed(name: string | null, code = 'ABCD'): RpcResponse<'items.rpc.get-owned'> {
  return { code, name, claimed_at: null, activated: false, is_owner: false, lost: false };
}

// Keeps this process from reading its sockets, as a CPU-bound handler or a long GC pause would.
function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

async function serverOutcomes(outcome: string): Promise<number> {
  const { values } = await metricsRegistry.getSingleMetric('homing_rpc_server_duration_seconds')!.get();
  return values
    .filter((value) => (value as { metricName?: string }).metricName === 'homing_rpc_server_duration_seconds_count' && value.labels.outcome === outcome)
    .reduce((sum, value) => sum + value.value, 0);
}

describe('NATS RPC transport', () => {
  const infra = testInfra();
  let app: NestFastifyApplication;
  let rpc: RpcClient;

  async function startApp(namespace: string, options?: NatsRpcServerOptions): Promise<NestFastifyApplication> {
    const moduleRef = await Test.createTestingModule({
      imports: [PlatformModule.forService({ service: 'items', config: testConfig(infra.natsUrl, namespace) })],
      controllers: [ItemsDouble],
    }).compile();
    const started = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter());
    started.connectMicroservice({ strategy: new NatsRpcServer(started.get(NatsClient), 'items', rpcHandlersOf(started), options) }, { deferInitialization: true });
    await started.init();
    try {
      await started.startAllMicroservices();
    } catch (error) {
      await started.close();
      throw error;
    }
    return started;
  }

  beforeAll(async () => {
    app = await startApp(isolatedName());
    rpc = app.get(RpcClient);
  });

  afterAll(() => app?.close());

  beforeEach(() => {
    slowReplyMs = 0;
    nestedDelayMs = 0;
    nestedOutcome = undefined;
    invocations.clear();
    exporter.reset();
  });

  it('carries the trace across the hop: the handler runs in the caller’s trace, under the client span', async () => {
    const tracer = trace.getTracer('test');
    const { traceId, reply } = await tracer.startActiveSpan('caller', async (root) => {
      const answer = await rpc.request('items.rpc.get-owned', { code: 'ABCD', ownerUserId: OWNER });
      root.end();
      return { traceId: root.spanContext().traceId, reply: answer };
    });
    expect(reply.name).toBe(traceId);
    const spans = exporter.getFinishedSpans();
    const client = spans.find((span) => span.kind === 2 /* CLIENT */);
    const server = spans.find((span) => span.kind === 1 /* SERVER */);
    expect(client?.spanContext().traceId).toBe(traceId);
    expect(server?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);
  });

  it('hands a refusal back as the same status and code', async () => {
    const error = await rpc.request('items.rpc.get-owned', { code: 'missing', ownerUserId: OWNER }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).body).toEqual({ status: 404, response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' });
  });

  it('turns a bug into a bare 500 without details', async () => {
    const error = (await rpc.request('items.rpc.get-owned', { code: 'bug', ownerUserId: OWNER }).catch((caught: unknown) => caught)) as RpcError;
    expect(error.body).toEqual({ status: 500, response_code: 'INTERNAL_ERROR', message: 'Our server seems to be having some troubles.' });
  });

  it('refuses a request that breaks the contract before the handler runs', async () => {
    const error = (await rpc.request('items.rpc.get-owned', { code: 42 } as never).catch((caught: unknown) => caught)) as RpcError;
    expect(error.body).toMatchObject({ status: 422, response_code: 'VALIDATION_ERROR', validation: { code: 'invalid', ownerUserId: 'required' } });
  });

  it('gives up after the timeout instead of hanging', async () => {
    slowReplyMs = 1000;
    await expect(rpc.request('items.rpc.get-owned', { code: 'ABCD', ownerUserId: OWNER }, { timeoutMs: 200 })).rejects.toBeInstanceOf(RpcTimeoutError);
  });

  it('answers the requests in flight when it shuts down', async () => {
    const namespace = isolatedName();
    const server = await startApp(namespace);
    const caller = await Test.createTestingModule({ imports: [PlatformModule.forService({ service: 'caller', config: testConfig(infra.natsUrl, namespace) })] }).compile();
    await caller.init();
    await caller.get(NatsClient).connect();
    slowReplyMs = 500;
    const inFlight = caller.get(RpcClient).request('items.rpc.get-owned', { code: 'ABCD', ownerUserId: OWNER });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.close();
    await expect(inFlight).resolves.toMatchObject({ code: 'ABCD' });
    // Closed: no longer taking requests.
    await expect(caller.get(RpcClient).request('items.rpc.get-owned', { code: 'ABCD', ownerUserId: OWNER })).rejects.toBeInstanceOf(RpcUnavailableError);
    await caller.close();
  });

  it('says unavailable at once when no service answers the subject', async () => {
    await expect(rpc.request('items.rpc.create', { name: 'Keys', ownerUserId: '0190a4e0-0000-7000-8000-000000000001' })).rejects.toBeInstanceOf(RpcUnavailableError);
  });

  it('sends its deadline with each request: now plus its timeout', async () => {
    const before = Date.now();
    const reply = await rpc.request('items.rpc.get-owned', { code: 'deadline', ownerUserId: OWNER }, { timeoutMs: 700 });
    expect(Number(reply.name)).toBeGreaterThanOrEqual(before + 700);
    expect(Number(reply.name)).toBeLessThanOrEqual(Date.now() + 700);
  });

  it('does not run the handler of a request whose caller gave up before the service got to it', async () => {
    const expiredBefore = await serverOutcomes('expired');
    const late = rpc.request('items.rpc.get-owned', { code: 'late', ownerUserId: OWNER }, { timeoutMs: 100 });
    // The service is too busy to read the request until well after its caller's timeout.
    blockEventLoop(300);
    await expect(late).rejects.toBeInstanceOf(RpcTimeoutError);
    await expectEventually(async () => expect(await serverOutcomes('expired')).toBe(expiredBefore + 1));
    expect(invoked('late')).toBe(0);
    // A request in time is handled as ever.
    await expect(rpc.request('items.rpc.get-owned', { code: 'late', ownerUserId: OWNER })).resolves.toMatchObject({ code: 'late' });
  });

  it('gives a call made while handling a request what is left of that request’s deadline, not a fresh timeout', async () => {
    nestedDelayMs = 200;
    const before = Date.now();
    const reply = await rpc.request('items.rpc.get-owned', { code: 'nested', ownerUserId: OWNER }, { timeoutMs: 1000 });
    const [outer, nested] = (reply.name ?? '').split('/').map(Number);
    // The caller's deadline, taken over unchanged by the nested call (a fresh 2 s would be 1.2 s later).
    expect(outer).toBeGreaterThanOrEqual(before + 1000);
    expect(outer).toBeLessThan(before + 1200);
    expect(nested).toBe(outer);
  });

  it('fails a nested call at once, without sending it, once the request being handled is past its deadline', async () => {
    nestedDelayMs = 400;
    const timeoutsBefore = await serverOutcomes('504');
    await expect(rpc.request('items.rpc.get-owned', { code: 'nested', ownerUserId: OWNER }, { timeoutMs: 200 })).rejects.toBeInstanceOf(RpcTimeoutError);
    await expectEventually(() => expect(nestedOutcome).toBeDefined());
    expect(nestedOutcome?.error).toBeInstanceOf(RpcTimeoutError);
    expect(nestedOutcome?.elapsedMs).toBeLessThan(150);
    expect(invoked('deadline')).toBe(0);
    // The handler's own answer: late (504), not a bug (500).
    await expectEventually(async () => expect(await serverOutcomes('504')).toBe(timeoutsBefore + 1));
  });

  it('answers 503 SERVICE_BUSY at once beyond its cap of handlers in flight, and still answers the ones it took', async () => {
    const server = await startApp(isolatedName(), { maxInFlight: 2 });
    const caller = server.get(RpcClient);
    const busyBefore = await serverOutcomes('busy');
    try {
      slowReplyMs = 500;
      const taken = [1, 2].map(() => caller.request('items.rpc.get-owned', { code: 'ABCD', ownerUserId: OWNER }));
      await expectEventually(() => expect(invoked('ABCD')).toBe(2), { intervalMs: 10 });
      const started = Date.now();
      const refused = await caller.request('items.rpc.get-owned', { code: 'ABCD', ownerUserId: OWNER }).catch((caught: unknown) => caught);
      expect(Date.now() - started).toBeLessThan(400);
      expect(refused).toBeInstanceOf(RpcError);
      expect((refused as RpcError).body).toEqual({ status: 503, response_code: 'SERVICE_BUSY', message: 'The service is busy. Try again shortly.' });
      expect(await serverOutcomes('busy')).toBe(busyBefore + 1);
      await expect(Promise.all(taken)).resolves.toEqual([expect.objectContaining({ code: 'ABCD' }), expect.objectContaining({ code: 'ABCD' })]);
      expect(invoked('ABCD')).toBe(2);
      // Answered, they free their places.
      slowReplyMs = 0;
      await expect(caller.request('items.rpc.get-owned', { code: 'ABCD', ownerUserId: OWNER })).resolves.toMatchObject({ code: 'ABCD' });
    } finally {
      await server.close();
    }
  });

  it('calls the handler in the caller’s context: its correlation id', async () => {
    const answer = await requestContext.run({ correlationId: 'c0ffee00-direct', causationId: null }, () => rpc.request('items.rpc.get-owned', { code: 'correlation', ownerUserId: OWNER }));
    expect(answer.name).toBe('c0ffee00-direct');
  });
});
