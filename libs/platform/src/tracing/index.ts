// Imported first by every main.ts, before any instrumented module loads: keep its imports to OpenTelemetry.
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

let sdk: NodeSDK | undefined;

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

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT).
 * Sampling: OTEL_TRACES_SAMPLER_ARG, else 0.1 in production (product spec §9) and 1 elsewhere.
 * Without an endpoint nothing is exported and trace headers pass through untouched.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk || !env.OTEL_EXPORTER_OTLP_ENDPOINT || process.argv[2]) return false;
  const configured = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = Number.isFinite(configured) && env.OTEL_TRACES_SAMPLER_ARG ? configured : env.NODE_ENV === 'production' ? 0.1 : 1;
  sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces` }),
    sampler: new tracing.ParentBasedSampler({ root: new tracing.TraceIdRatioBasedSampler(ratio) }),
    instrumentations: tracingInstrumentations(),
  });
  sdk.start();
  return true;
}

export async function stopTracing(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
