import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { bullmqPrefixOf, NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../config/notifications.config';
import { notificationJobId, type EmailJobMap, type EmailKind } from './email-jobs';
import { QUEUES } from './persisted-names';
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

/** The typed producer side of the `email` queue: consumers enqueue here, the EmailProcessor sends. */
@Injectable()
export class EmailQueue implements OnModuleDestroy {
  private readonly logger = new Logger(EmailQueue.name);
  private readonly connection: IORedis;
  private readonly queue: Queue;
  private connectionError?: Error;

  constructor(@Inject(NOTIFICATIONS_CONFIG) config: NotificationsConfig) {
    // While Redis is away an enqueue fails at once instead of hanging the event consumer (BullMQ would wait for the
    // connection to be ready): the event is delivered again later, as for any dependency that is away.
    this.connection = new IORedis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectionName: 'notifications-email-queue' });
    this.connection.on('error', (error) => (this.connectionError = error));
    this.connection.on('ready', () => (this.connectionError = undefined));
    this.queue = new Queue(QUEUES.email, {
      connection: this.connection,
      prefix: bullmqPrefixOf(config),
      defaultJobOptions: NOTIFICATION_JOB_OPTIONS,
    });
    this.queue.on('error', throttledWarning(this.logger, 'email queue'));
  }

  /**
   * Enqueues one e-mail for one recipient of an event. The job id is deterministic, so enqueueing the same event for
   * the same recipient again (a redelivery, a republished event) adds nothing while the first job is kept.
   */
  async enqueue<K extends EmailKind>(kind: K, eventId: string, data: EmailJobMap[K]): Promise<string> {
    const jobId = notificationJobId('email', eventId, data.userId);
    try {
      // ioredis's own words for a connection that is not open, which the consumer runner knows as "dependency away".
      if (this.connection.status !== 'ready') throw this.connectionError ?? new Error(`Connection is closed (${this.connection.status})`);
      await this.queue.add(kind, data, { jobId });
    } catch (error) {
      if (this.connection.status !== 'ready') throw new QueueUnavailableError(QUEUES.email, this.connectionError ?? error);
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
