import { Counter, Gauge, Histogram } from 'prom-client';

// Metric names are part of dashboards and alerts: rename with care. Registered in the process's one registry, which
// the platform serves at /metrics.

export const notificationMetrics = {
  jobDuration: new Histogram({
    name: 'homing_notification_job_duration_seconds',
    help: 'Notification jobs run, by channel (email, push) and outcome (sent, retried, failed, delayed)',
    labelNames: ['channel', 'outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
  }),
  jobFailures: new Counter({
    name: 'homing_notification_job_failures_total',
    help: 'Notification job runs that failed, by channel and whether the job failed for good (final) or will be retried',
    labelNames: ['channel', 'final'],
  }),
};

/** Depth of each queue by state, read from Redis when /metrics is scraped (see QueueDepthsRepository). */
export function queueDepthGauge(collect: (gauge: Gauge<'queue' | 'state'>) => Promise<void>): Gauge<'queue' | 'state'> {
  return new Gauge({
    name: 'homing_notification_queue_jobs',
    help: 'Jobs in each notification queue by state (waiting, delayed, active, failed), as Redis holds them when scraped',
    labelNames: ['queue', 'state'],
    async collect() {
      await collect(this);
    },
  });
}
