import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { bullmqPrefixOf, NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../config/notifications.config';
import { notificationJobId, type EmailJobMap, type EmailKind } from './email-jobs';
import { QUEUES } from './persisted-names';
import { settlesWithin, throttledWarning } from './redis-connection';
import { NOTIFICATION_JOB_OPTIONS } from './queue-settings';

/** The typed producer side of the `email` queue: consumers enqueue here, the EmailProcessor sends. */
@Injectable()
export class EmailQueue implements OnModuleDestroy {
  private readonly logger = new Logger(EmailQueue.name);
  private readonly connection: IORedis;
  private readonly queue: Queue;

  constructor(@Inject(NOTIFICATIONS_CONFIG) config: NotificationsConfig) {
    // A few retries, then the enqueue fails and the event is delivered again later: the event consumer waits for Redis.
    this.connection = new IORedis(config.REDIS_URL, { maxRetriesPerRequest: 3, connectionName: 'notifications-email-queue' });
    this.connection.on('error', () => undefined);
    this.queue = new Queue(QUEUES.email, { connection: this.connection, prefix: bullmqPrefixOf(config), defaultJobOptions: NOTIFICATION_JOB_OPTIONS });
    this.queue.on('error', throttledWarning(this.logger, 'email queue'));
  }

  /**
   * Enqueues one e-mail for one recipient of an event. The job id is deterministic, so enqueueing the same event for
   * the same recipient again (a redelivery, a republished event) adds nothing while the first job is kept.
   */
  async enqueue<K extends EmailKind>(kind: K, eventId: string, data: EmailJobMap[K]): Promise<string> {
    const jobId = notificationJobId('email', eventId, data.userId);
    await this.queue.add(kind, data, { jobId });
    return jobId;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.connection.status !== 'ready') this.connection.disconnect();
    await settlesWithin(this.queue.close(), 2000);
    this.connection.disconnect();
  }
}
