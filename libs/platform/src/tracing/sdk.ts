// OpenTelemetry's SDK and OTLP exporter: about 2,000 modules, loaded by index.ts only when traces are exported.
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

// Probes and scrapes would be most of the spans and none of the insight.
const UNTRACED_PATHS = /^\/(health\/|metrics(\?|$))/;

/**
 * What is traced, named one by one: auto-discovery patched every module it knew (fastify, Nest, dns, net…) and cost
 * the gateway most of its throughput. NATS hops have their own spans (spans.ts).
 */
export function tracingInstrumentations(): Instrumentation[] {
  return [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? '') }),
    new PgInstrumentation(),
    new IORedisInstrumentation(),
  ];
}

/** A started SDK exporting to `endpoint`, sampling `ratio` of root traces (children follow their parent). */
export function startSdk(serviceName: string, endpoint: string, ratio: number): NodeSDK {
  const sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
    sampler: new tracing.ParentBasedSampler({ root: new tracing.TraceIdRatioBasedSampler(ratio) }),
    instrumentations: tracingInstrumentations(),
  });
  sdk.start();
  return sdk;
}
