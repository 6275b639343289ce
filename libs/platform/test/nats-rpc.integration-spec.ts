import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { trace } from '@opentelemetry/api';
import { node, tracing } from '@opentelemetry/sdk-node';
import { ResponseCode, type RpcRequest } from '@homing/contracts';
import { isolatedName, testInfra } from '@homing/testing';
import { testConfig } from './test-config';
import { NatsClient, NatsRpcServer, PlatformModule, RpcClient, RpcError, RpcErrorPassThroughFilter, RpcTimeoutError, RpcUnavailableError } from '../src';

// A real tracer provider with an in-memory exporter, so the test sees the spans a service would export.
const exporter = new tracing.InMemorySpanExporter();
new node.NodeTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] }).register();

let slowReplyMs = 0;

@Controller()
class ItemsDouble {
  @MessagePattern('items.rpc.get-by-code')
  async getByCode(@Payload() request: RpcRequest<'items.rpc.get-by-code'>) {
    if (request.code === 'missing') throw RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
    if (request.code === 'bug') throw new TypeError('cannot read properties of undefined');
    await new Promise((resolve) => setTimeout(resolve, slowReplyMs));
    // The trace id the handler runs under, so the caller can check the trace crossed NATS.
    return { code: request.code, name: trace.getActiveSpan()?.spanContext().traceId ?? null, claimed_at: null, activated: false, is_owner: false };
  }
}

describe('NATS RPC transport', () => {
  const infra = testInfra();
  let app: NestFastifyApplication;
  let rpc: RpcClient;

  async function startApp(namespace: string): Promise<NestFastifyApplication> {
    const moduleRef = await Test.createTestingModule({
      imports: [PlatformModule.forService({ service: 'items', config: testConfig(infra.natsUrl, namespace) })],
      controllers: [ItemsDouble],
    }).compile();
    const started = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter());
    started.connectMicroservice({ strategy: new NatsRpcServer(started.get(NatsClient), 'items') }, { deferInitialization: true }).useGlobalFilters(new RpcErrorPassThroughFilter());
    await started.init();
    await started.startAllMicroservices();
    return started;
  }

  beforeAll(async () => {
    app = await startApp(isolatedName());
    rpc = app.get(RpcClient);
  });

  afterAll(() => app?.close());

  beforeEach(() => {
    slowReplyMs = 0;
    exporter.reset();
  });

  it('carries the trace across the hop: the handler runs in the caller’s trace, under the client span', async () => {
    const tracer = trace.getTracer('test');
    const { traceId, reply } = await tracer.startActiveSpan('caller', async (root) => {
      const answer = await rpc.request('items.rpc.get-by-code', { code: 'ABCD', viewerUserId: null });
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
    const error = await rpc.request('items.rpc.get-by-code', { code: 'missing', viewerUserId: null }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).body).toEqual({ status: 404, response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' });
  });

  it('turns a bug into a bare 500 without details', async () => {
    const error = (await rpc.request('items.rpc.get-by-code', { code: 'bug', viewerUserId: null }).catch((caught: unknown) => caught)) as RpcError;
    expect(error.body).toEqual({ status: 500, response_code: 'INTERNAL_ERROR', message: 'Our server seems to be having some troubles.' });
  });

  it('refuses a request that breaks the contract before the handler runs', async () => {
    const error = (await rpc.request('items.rpc.get-by-code', { code: 42 } as never).catch((caught: unknown) => caught)) as RpcError;
    expect(error.body).toMatchObject({ status: 422, response_code: 'VALIDATION_ERROR', validation: { code: 'invalid', viewerUserId: 'required' } });
  });

  it('gives up after the timeout instead of hanging', async () => {
    slowReplyMs = 1000;
    await expect(rpc.request('items.rpc.get-by-code', { code: 'ABCD', viewerUserId: null }, { timeoutMs: 200 })).rejects.toBeInstanceOf(RpcTimeoutError);
  });

  it('answers the requests in flight when it shuts down', async () => {
    const namespace = isolatedName();
    const server = await startApp(namespace);
    const caller = await Test.createTestingModule({ imports: [PlatformModule.forService({ service: 'caller', config: testConfig(infra.natsUrl, namespace) })] }).compile();
    await caller.init();
    await caller.get(NatsClient).connect();
    slowReplyMs = 500;
    const inFlight = caller.get(RpcClient).request('items.rpc.get-by-code', { code: 'ABCD', viewerUserId: null });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.close();
    await expect(inFlight).resolves.toMatchObject({ code: 'ABCD' });
    // Closed: no longer taking requests.
    await expect(caller.get(RpcClient).request('items.rpc.get-by-code', { code: 'ABCD', viewerUserId: null })).rejects.toBeInstanceOf(RpcUnavailableError);
    await caller.close();
  });

  it('says unavailable at once when no service answers the subject', async () => {
    await expect(rpc.request('items.rpc.create', { name: 'Keys', ownerUserId: '0190a4e0-0000-7000-8000-000000000001' })).rejects.toBeInstanceOf(RpcUnavailableError);
  });
});
