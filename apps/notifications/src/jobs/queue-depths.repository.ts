import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { Gauge } from 'prom-client';
import { InjectConfig, metricsRegistry } from '@homing/platform';
import { bullmqPrefixOf, type NotificationsConfig } from '../config/notifications.config';
import { queueDepthGauge } from './notification-metrics';
import { QUEUES } from '../persisted-names';
import { settlesWithin } from './redis-connection';

const STATES = ['waiting', 'delayed', 'active', 'failed'] as const;
// A scrape must answer even with Redis away: the depths are then left out rather than waited for.
const READ_TIMEOUT_MS = 1000;

/**
 * Queue depths in Redis for /metrics: waiting, delayed, active and failed jobs of every queue, read when scraped. Every role
 * reports them (they are the queues', not the process's): KEDA or an alert reads any one replica.
 */
@Injectable()
export class QueueDepthsRepository implements OnModuleDestroy {
  private readonly connection: IORedis;
  private readonly queues: Queue[];
  private readonly gauge: Gauge<'queue' | 'state'>;

  constructor(@InjectConfig() config: NotificationsConfig) {
    this.connection = new IORedis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectionName: 'notifications-queue-metrics' });
    this.connection.on('error', () => undefined);
    this.queues = Object.values(QUEUES).map((name) => new Queue(name, { connection: this.connection, prefix: bullmqPrefixOf(config) }));
    for (const queue of this.queues) queue.on('error', () => undefined);
    this.gauge = queueDepthGauge((gauge) => this.collect(gauge));
  }

  private async collect(gauge: Gauge<'queue' | 'state'>): Promise<void> {
    gauge.reset();
    if (this.connection.status !== 'ready') return;
    await settlesWithin(
      Promise.all(
        this.queues.map(async (queue) => {
          const counts = await queue.getJobCounts(...STATES);
          for (const state of STATES) gauge.set({ queue: queue.name, state }, counts[state] ?? 0);
        }),
      ),
      READ_TIMEOUT_MS,
    );
  }

  async onModuleDestroy(): Promise<void> {
    // The gauge lives in the process's registry: a second application in the same process (tests) makes its own.
    metricsRegistry.removeSingleMetric('homing_notification_queue_jobs');
    await Promise.all(this.queues.map((queue) => settlesWithin(queue.close(), 1000)));
    this.connection.disconnect();
  }
}
