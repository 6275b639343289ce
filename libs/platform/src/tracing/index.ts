// Imported first by every main.ts, before any instrumented module loads: keep its imports to OpenTelemetry.
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT).
 * Sampling: OTEL_TRACES_SAMPLER_ARG, else 0.1 in production (product spec §9) and 1 elsewhere.
 * Without an endpoint nothing is exported and trace headers pass through untouched.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): void {
  if (sdk || !env.OTEL_EXPORTER_OTLP_ENDPOINT || process.argv[2]) return;
  const configured = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = Number.isFinite(configured) && env.OTEL_TRACES_SAMPLER_ARG ? configured : env.NODE_ENV === 'production' ? 0.1 : 1;
  sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces` }),
    sampler: new tracing.ParentBasedSampler({ root: new tracing.TraceIdRatioBasedSampler(ratio) }),
    instrumentations: [getNodeAutoInstrumentations({ '@opentelemetry/instrumentation-fs': { enabled: false } })],
  });
  sdk.start();
}

export async function stopTracing(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
