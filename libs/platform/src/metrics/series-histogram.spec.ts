import { Histogram, Registry, type Metric } from 'prom-client';
import { SeriesHistogram } from './series-histogram';

const BOUNDS = [0.001, 0.01, 0.1, 1];
const OBSERVED: [string, string, string, number][] = [
  ['GET', '/api/v1/items/:code', '200', 0.0004],
  ['GET', '/api/v1/items/:code', '200', 0.001], // on a bound: counted in it, as prom-client does
  ['GET', '/api/v1/items/:code', '404', 0.02],
  ['POST', '/api/v1/items/:code/messages', '201', 0.5],
  ['GET', '/qr/:code', '200', 7], // past every bound: +Inf only
  ['GET', '/api/v1/items/:code', '200', 0.05],
];

let named = 0;
function bothHistograms(): { ours: SeriesHistogram<readonly ['method', 'route', 'status']>; reference: Histogram<'method' | 'route' | 'status'> } {
  named += 1;
  const name = `test_series_histogram_${named}_seconds`;
  return {
    ours: new SeriesHistogram(name, 'What was timed', ['method', 'route', 'status'], BOUNDS),
    reference: new Histogram({ name, help: 'What was timed', labelNames: ['method', 'route', 'status'], buckets: BOUNDS, registers: [] }),
  };
}

describe('SeriesHistogram', () => {
  it('is scraped exactly as prom-client’s Histogram with the same observations', async () => {
    const { ours, reference } = bothHistograms();
    for (const [method, route, status, seconds] of OBSERVED) {
      ours.observe([method, route, status], seconds);
      reference.observe({ method, route, status }, seconds);
    }
    // Each in a registry of its own (they share a name), both with the service's default label.
    const [mine, theirs] = [new Registry(), new Registry()];
    mine.registerMetric(ours as unknown as Metric);
    theirs.registerMetric(reference);
    for (const registry of [mine, theirs]) registry.setDefaultLabels({ service: 'gateway' });

    const scraped = await mine.metrics();

    expect(scraped).toBe(await theirs.metrics());
    expect(scraped).toContain('test_series_histogram_1_seconds_count{service="gateway",method="GET",route="/api/v1/items/:code",status="200"} 3');
    expect(scraped).toContain('test_series_histogram_1_seconds_bucket{le="0.001",service="gateway",method="GET",route="/api/v1/items/:code",status="200"} 2');
    expect(scraped).toContain('test_series_histogram_1_seconds_bucket{le="1",service="gateway",method="GET",route="/qr/:code",status="200"} 0');
    expect(scraped).toContain('test_series_histogram_1_seconds_bucket{le="+Inf",service="gateway",method="GET",route="/qr/:code",status="200"} 1');
  });

  it('answers get() with every value’s labels in one object, as prom-client does', async () => {
    const { ours, reference } = bothHistograms();
    for (const [method, route, status, seconds] of OBSERVED) {
      ours.observe([method, route, status], seconds);
      reference.observe({ method, route, status }, seconds);
    }
    const plain = (values: { metricName?: string; labels: object; value: number }[]) => values.map(({ metricName, labels, value }) => ({ metricName, labels, value }));

    const [mine, theirs] = await Promise.all([ours.get(), reference.get()]);

    expect(plain(mine.values)).toEqual(plain(theirs.values));
    expect(mine).toMatchObject({ name: theirs.name, help: theirs.help, type: 'histogram', aggregator: 'sum' });
  });

  it('is in the default registry, and reset empties it', async () => {
    const { ours } = bothHistograms();
    ours.observe(['GET', '/health/ready', '200'], 0.002);
    const { register } = await import('prom-client');

    expect(await register.getSingleMetricAsString(ours.name)).toContain('status="200"} 1');
    ours.reset();
    expect((await ours.get()).values).toEqual([]);
    // And it counts again afterwards, the same series anew.
    ours.observe(['GET', '/health/ready', '200'], 0.002);
    expect(await register.getSingleMetricAsString(ours.name)).toContain('status="200"} 1');
  });

  it('refuses label values that do not match its label names, and values that are not numbers, as prom-client does', async () => {
    const { ours } = bothHistograms();

    expect(() => ours.observe(['GET', '/x'] as unknown as [string, string, string], 0.1)).toThrow('3 label values expected, got 2');
    expect(() => ours.observe(['GET', '/x', '200'], Number.NaN)).toThrow(TypeError);
    expect((await ours.get()).values).toEqual([]);
  });
});
