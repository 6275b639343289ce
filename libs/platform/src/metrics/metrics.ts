import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, register } from 'prom-client';
import { SeriesHistogram } from './series-histogram';

// One registry per process (prom-client's default). Metric names are part of dashboards: rename with care.
let defaultsCollected = false;

/**
 * How often the event-loop lag is sampled. Node's histogram records each sample's whole interval, this included, so
 * `nodejs_eventloop_lag_p99_seconds` and its siblings read 1 s plus the lag: subtract this to get the lag itself.
 */
export const EVENT_LOOP_SAMPLE_MS = 1000;

export function collectProcessMetrics(service: string): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  register.setDefaultLabels({ service });
  // The event-loop lag histogram samples with a timer, and each tick wakes an idle process: at prom-client's default
  // 10 ms that cost 0.3–0.6 % of a core per process, at 100 ms still 0.1 % (B8, measured alone), at 1 s 0.01 %. A
  // stall of a second or more is always caught; shorter ones show in the busy-time counter below, which needs no timer.
  collectDefaultMetrics({ eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
}

// How long the event loop has been busy (not waiting for I/O or timers), read from Node when scraped:
// rate(homing_event_loop_busy_seconds_total[1m]) is the loop's utilisation, 1 meaning saturated.
let busyMsCounted = 0;
export const eventLoopMetrics = {
  busy: new Counter({
    name: 'homing_event_loop_busy_seconds_total',
    help: 'Time the event loop spent running code (its utilisation is the rate)',
    collect() {
      const busyMs = performance.eventLoopUtilization().active;
      if (busyMs > busyMsCounted) this.inc((busyMs - busyMsCounted) / 1000);
      busyMsCounted = busyMs;
    },
  }),
};

const seconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export const httpMetrics = {
  duration: new SeriesHistogram('homing_http_request_duration_seconds', 'HTTP requests by route, method and status', ['method', 'route', 'status'], seconds),
};

export const rpcMetrics = {
  clientDuration: new SeriesHistogram('homing_rpc_client_duration_seconds', 'RPC calls made, by subject and outcome', ['subject', 'outcome'], seconds),
  serverDuration: new SeriesHistogram('homing_rpc_server_duration_seconds', 'RPC requests handled, by subject and outcome', ['subject', 'outcome'], seconds),
};

// What the outbox gauge reads when it is scraped (the relay registers it): one query a scrape, none a batch.
let oldestPendingReader: (() => Promise<number>) | undefined;

/** Registers (or, with undefined, removes) how the outbox's oldest pending age is read when metrics are scraped. */
export function readOldestPendingWith(reader: (() => Promise<number>) | undefined): void {
  oldestPendingReader = reader;
}

export const outboxMetrics = {
  published: new Counter({ name: 'homing_outbox_published_total', help: 'Events published from the outbox', labelNames: ['subject'] }),
  failures: new Counter({ name: 'homing_outbox_publish_failures_total', help: 'Outbox relay batches that failed, or left rows JetStream did not answer for, to be retried' }),
  dispatchesLeft: new Counter({
    name: 'homing_outbox_dispatches_left_total',
    help: 'Events published as they committed whose publish or mark failed, left to the relay (published again under their id)',
  }),
  refusals: new Counter({
    name: 'homing_outbox_refusals_total',
    help: 'Outbox rows JetStream refused for what they are while it answered (each offered again after 2^refusals s, at most 5 min)',
    labelNames: ['subject'],
  }),
  setAside: new Counter({
    name: 'homing_outbox_set_aside_total',
    help: 'Outbox rows set aside after an hour of refusals (republish-set-aside-events offers them again); secrets are deleted',
    labelNames: ['subject'],
  }),
  oldestPendingSeconds: new Gauge({
    name: 'homing_outbox_oldest_pending_seconds',
    help: 'Age of the oldest unpublished outbox row',
    async collect() {
      // A database away keeps the last value: the relay's failures counter tells of it.
      const age = await oldestPendingReader?.().catch(() => undefined);
      if (age !== undefined) this.set(age);
    },
  }),
};

export const consumerMetrics = {
  handled: new Counter({
    name: 'homing_events_handled_total',
    help: 'Events taken from JetStream, by consumer and outcome (applied, duplicate, deferred, retried, dead-lettered)',
    labelNames: ['consumer', 'outcome'],
  }),
};

export const databaseMetrics = {
  queries: new Counter({
    name: 'homing_db_queries_total',
    help: 'SQL statements sent to PostgreSQL, by the RPC subject or event consumer that sent them (background: outbox relay rounds, purges; an event dispatched as it commits counts under its work)',
    labelNames: ['work'],
  }),
};

export const retentionMetrics = {
  purged: new Counter({ name: 'homing_retention_purged_total', help: 'Rows deleted or cleared by retention rules, by rule', labelNames: ['rule'] }),
};

export { register as metricsRegistry };
