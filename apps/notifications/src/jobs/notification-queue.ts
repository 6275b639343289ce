import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { bullmqPrefixOf, type NotificationsConfig } from '../config/notifications.config';
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

/** The producer side of one queue, shared by the typed wrappers (`EmailQueue`, `PushQueue`) the consumers use. */
export abstract class NotificationQueue implements OnModuleDestroy {
  protected readonly logger: Logger;
  private readonly connection: IORedis;
  private readonly queue: Queue;
  private connectionError?: Error;

  protected constructor(
    private readonly name: string,
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

  /** Adds a job under its deterministic id: while a job of that id is kept, adding it again adds nothing. */
  protected async add(jobName: string, jobId: string, data: object): Promise<string> {
    try {
      // ioredis's own words for a connection that is not open, which the consumer runner knows as "dependency away".
      if (this.connection.status !== 'ready') throw this.connectionError ?? new Error(`Connection is closed (${this.connection.status})`);
      await this.queue.add(jobName, data, { jobId });
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
