import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { bullmqPrefixOf, type NotificationsConfig } from '../config/notifications.config';
import { notificationJobId, type Channel } from './job-ids';
import { settlesWithin, throttledWarning } from './redis-connection';
import { NOTIFICATION_JOB_OPTIONS } from './queue-settings';

/**
 * The queue's Redis is away. Its cause is the connection's own error (ECONNREFUSED …), so the event consumer counts it
 * as a dependency failure: retried without end, never dead-lettered.
 */
export class QueueUnavailableError extends Error {
  constructor(queue: string, cause: unknown) {
    super(`the Redis of queue ${queue} is unreachable`, { cause });
    this.name = 'QueueUnavailableError';
  }
}

/**
 * The producer side of one queue in Redis, shared by the typed repositories (`EmailQueueRepository`,
 * `PushQueueRepository`) the consumers enqueue through: `Job` is the queue's job union, discriminated by `kind`.
 */
export abstract class QueueRepository<Job extends { kind: string; data: object }> implements OnModuleDestroy {
  protected readonly logger: Logger;
  private readonly connection: IORedis;
  private readonly queue: Queue;
  private connectionError?: Error;

  protected constructor(
    private readonly name: Channel,
    config: NotificationsConfig,
  ) {
    this.logger = new Logger(`${name}-queue`);
    // While Redis is away an enqueue fails at once instead of hanging the event consumer (BullMQ would wait for the
    // connection to be ready): the event is delivered again later, as for any dependency that is away.
    this.connection = new IORedis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectionName: `notifications-${name}-queue` });
    this.connection.on('error', (error) => (this.connectionError = error));
    this.connection.on('ready', () => (this.connectionError = undefined));
    this.queue = new Queue(name, {
      connection: this.connection,
      prefix: bullmqPrefixOf(config),
      defaultJobOptions: NOTIFICATION_JOB_OPTIONS,
    });
    this.queue.on('error', throttledWarning(this.logger, `${name} queue`));
  }

  /** The recipient part of the job id: the same event for the same recipient is the same job. */
  protected abstract recipientIdOf(job: Job): string;

  /**
   * Enqueues one job for one recipient of an event. The job id is deterministic (`notificationJobId`), so enqueueing
   * the same event for the same recipient again (a redelivery, a republished event) adds nothing while the first job
   * is kept. `eventId` is the event the job is about: for a coalesced mail, the event that opened its window.
   * `delayMs`: the job waits that long before a worker takes it.
   */
  async enqueue(job: Job, eventId: string, options: { delayMs?: number } = {}): Promise<string> {
    const jobId = notificationJobId(this.name, eventId, this.recipientIdOf(job));
    try {
      // ioredis's own words for a connection that is not open, which the consumer runner knows as "dependency away".
      if (this.connection.status !== 'ready') throw this.connectionError ?? new Error(`Connection is closed (${this.connection.status})`);
      await this.queue.add(job.kind, job.data, { jobId, ...(options.delayMs ? { delay: options.delayMs } : {}) });
    } catch (error) {
      if (this.connection.status !== 'ready') throw new QueueUnavailableError(this.name, this.connectionError ?? error);
      throw error;
    }
    return jobId;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.connection.status !== 'ready') this.connection.disconnect();
    await settlesWithin(this.queue.close(), 2000);
    this.connection.disconnect();
  }
}
