import { startTracing, tracingInstrumentations } from './index';

describe('tracing', () => {
  it('instruments http, pg and ioredis only, nothing discovered', () => {
    expect(tracingInstrumentations().map((instrumentation) => instrumentation.instrumentationName)).toEqual([
      '@opentelemetry/instrumentation-http',
      '@opentelemetry/instrumentation-pg',
      '@opentelemetry/instrumentation-ioredis',
    ]);
  });

  it('stays off without an OTLP endpoint', () => {
    expect(startTracing('svc', {})).toBe(false);
  });
});
