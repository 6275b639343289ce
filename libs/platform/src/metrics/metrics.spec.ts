import { metricsRegistry } from './metrics';

async function busySeconds(): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('homing_event_loop_busy_seconds_total')?.get();
  return metric?.values[0]?.value ?? NaN;
}

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('homing_event_loop_busy_seconds_total', () => {
  it('grows by the time the loop ran code', async () => {
    const start = await busySeconds();
    spin(200);
    const afterWork = await busySeconds();

    expect(afterWork - start).toBeGreaterThanOrEqual(0.19);
    expect(afterWork - start).toBeLessThan(5); // seconds, not milliseconds
    // Not asserted: that it stays still while the loop waits. In a loaded Jest worker a 300 ms wait counted as busy.
  });
});
