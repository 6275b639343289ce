import { startTracing } from './index';
import { startSdk, tracingInstrumentations } from './sdk';

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

  it('starts and stops the SDK it loads only for an endpoint', async () => {
    const sdk = startSdk('svc', 'http://127.0.0.1:4318/', 0.5);
    await expect(sdk.shutdown()).resolves.toBeUndefined();
  });
});
