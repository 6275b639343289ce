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
  it('grows by the time the loop ran code, and not while it waited', async () => {
    const start = await busySeconds();
    spin(200);
    const afterWork = await busySeconds();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const afterWait = await busySeconds();

    expect(afterWork - start).toBeGreaterThanOrEqual(0.19);
    expect(afterWork - start).toBeLessThan(1);
    expect(afterWait - afterWork).toBeLessThan(0.1);
  });
});
