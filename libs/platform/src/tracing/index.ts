// Imported first by every main.ts, before any instrumented module loads. Without an OTLP endpoint it loads nothing
// of OpenTelemetry but the API (spans.ts): the SDK alone was half the modules a service compiled at start-up (B8).

let sdk: { shutdown(): Promise<void> } | undefined;

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT).
 * Sampling: OTEL_TRACES_SAMPLER_ARG, else 0.1 in production (product spec §9) and 1 elsewhere.
 * Without an endpoint nothing is exported and trace headers pass through untouched.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk || !env.OTEL_EXPORTER_OTLP_ENDPOINT || process.argv[2]) return false;
  const configured = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = Number.isFinite(configured) && env.OTEL_TRACES_SAMPLER_ARG ? configured : env.NODE_ENV === 'production' ? 0.1 : 1;
  // Loaded here, synchronously, so the instrumentations are in place before the service's own modules load.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startSdk } = require('./sdk') as typeof import('./sdk');
  sdk = startSdk(serviceName, env.OTEL_EXPORTER_OTLP_ENDPOINT, ratio);
  return true;
}

export async function stopTracing(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
