import { register, type Metric } from 'prom-client';

/** One label combination's counts: per bucket (not yet cumulative), sum and count. */
interface Series {
  /** Its labels by name, made once: prom-client's registry caches each labels object's text by identity. */
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/** A scraped value as prom-client's Histogram gives it: `labels` holds `le` alone, `sharedLabels` the series' labels. */
interface ExportedValue {
  metricName: string;
  labels: Record<string, string | number>;
  sharedLabels: Readonly<Record<string, string>>;
  value: number;
}

/** What prom-client's registry reads of a metric when it is scraped. */
interface Scraped<V> {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: V[];
}

/**
 * A histogram observed on every request (HTTP answers, RPC calls and handlers), scraped in prom-client's own format
 * from its registry. prom-client's `observe` takes a labels object, validates it, sorts and joins its keys into a
 * hash and looks the series up on every call: about a microsecond, some 3 % of a scan or QR image answered from memory
 * (B2, B6). Here the label values come in `labelNames`' order and each finds its series through one Map per label,
 * keyed by the value itself (route patterns, subjects and methods are the same string objects every time, so their
 * hashes are cached). `series-histogram.spec.ts` holds the scrape equal to prom-client's Histogram's.
 */
export class SeriesHistogram<const L extends readonly string[]> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private root = new Map<string, unknown>();
  private readonly series: Series[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: L,
    private readonly upperBounds: readonly number[],
  ) {
    register.registerMetric(this as unknown as Metric);
  }

  /** Counts `value` (seconds) for the label values, one for each of `labelNames`, in their order. */
  observe(labelValues: { readonly [K in keyof L]: string }, value: number): void {
    if (labelValues.length !== this.labelNames.length) throw new Error(`${this.name}: ${this.labelNames.length} label values expected, got ${labelValues.length}`);
    // As prom-client's Histogram: a value that is not a number is the caller's bug.
    if (!Number.isFinite(value)) throw new TypeError(`${this.name}: value is not a valid number: ${value}`);
    const series = this.seriesOf(labelValues as readonly string[]);
    series.sum += value;
    series.count += 1;
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i += 1) {
      if (value <= bounds[i]) {
        series.buckets[i] += 1;
        return;
      }
    }
  }

  /** For the registry's text format (as prom-client's Histogram: buckets cumulative, then +Inf, sum and count). */
  async getForPromString(): Promise<Scraped<ExportedValue>> {
    const values: ExportedValue[] = [];
    for (const series of this.series) {
      const sharedLabels = series.labels;
      let cumulative = 0;
      this.upperBounds.forEach((bound, i) => {
        cumulative += series.buckets[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound }, sharedLabels, value: cumulative });
      });
      values.push(
        { metricName: `${this.name}_bucket`, labels: { le: '+Inf' }, sharedLabels, value: series.count },
        { metricName: `${this.name}_sum`, labels: {}, sharedLabels, value: series.sum },
        { metricName: `${this.name}_count`, labels: {}, sharedLabels, value: series.count },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As prom-client's `get()`: every value's labels in one object. */
  async get(): Promise<Scraped<Omit<ExportedValue, 'sharedLabels'>>> {
    const metric = await this.getForPromString();
    return { ...metric, values: metric.values.map(({ sharedLabels, labels, ...value }) => ({ ...value, labels: { ...labels, ...sharedLabels } })) };
  }

  reset(): void {
    this.root = new Map();
    this.series.length = 0;
  }

  private seriesOf(labelValues: readonly string[]): Series {
    let level = this.root;
    const last = labelValues.length - 1;
    for (let i = 0; i < last; i += 1) {
      let next = level.get(labelValues[i]) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(labelValues[i], next);
      }
      level = next;
    }
    let series = level.get(labelValues[last]) as Series | undefined;
    if (series === undefined) {
      const labels = Object.fromEntries(this.labelNames.map((label, i) => [label, labelValues[i]]));
      series = { labels, buckets: new Float64Array(this.upperBounds.length), sum: 0, count: 0 };
      level.set(labelValues[last], series);
      this.series.push(series);
    }
    return series;
  }
}
