import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import IORedis from 'ioredis';
import { bullmqPrefixOf, type NotificationsConfig } from '../config/notifications.config';
import type { Channel } from './job-ids';
import { notificationMetrics } from './notification-metrics';
import { settlesWithin, throttledWarning } from './redis-connection';
import { notificationWorkerOptions } from './queue-settings';

// SIGTERM: jobs in hand get this long to finish (SMTP and push timeouts are shorter), inside the service's 25 s deadline.
const DRAIN_TIMEOUT_MS = 15_000;

/** Whether this run is the job's last: a failure now is one for good (a delivery row must say `failed`, not `sending`). */
export function isLastRun(job: { attemptsMade: number; opts?: { attempts?: number } }): boolean {
  return job.attemptsMade + 1 >= (job.opts?.attempts ?? 1);
}

/**
 * The worker of one queue (role `worker` or `all`): started once the application is up, drained on SIGTERM. The
 * channel's processor (`EmailProcessor`, `PushProcessor`) decides what a job does.
 */
export abstract class QueueWorker<Data> implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger: Logger;
  private worker?: Worker<Data>;
  private connection?: IORedis;

  protected constructor(
    private readonly queueName: Channel,
    private readonly workerConfig: NotificationsConfig,
  ) {
    this.logger = new Logger(`${queueName}-worker`);
  }

  /** Does one job; throws to have it retried (or `UnrecoverableError` to fail it for good). */
  abstract process(job: Job<Data>, token?: string): Promise<void>;

  /**
   * Puts the job back until `at`, as a delay rather than a failed attempt, and ends this run (always throws). Without
   * the run's lock token (BullMQ always passes one) it fails the attempt instead, to be retried with back-off.
   */
  protected async comeBackAt(job: Job<Data>, token: string | undefined, at: number, reason: string): Promise<never> {
    if (!token) throw new Error(reason);
    await job.moveToDelayed(at, token);
    throw new DelayedError(reason);
  }

  onApplicationBootstrap(): void {
    // A hybrid app runs bootstrap hooks once per server: start once.
    if (this.worker) return;
    // Workers block on Redis: BullMQ requires commands that wait for a reconnect instead of failing.
    this.connection = new IORedis(this.workerConfig.REDIS_URL, { maxRetriesPerRequest: null, connectionName: `notifications-${this.queueName}-worker` });
    this.connection.on('error', () => undefined);
    this.worker = new Worker<Data>(this.queueName, (job, token) => this.measured(job, token), {
      connection: this.connection,
      prefix: bullmqPrefixOf(this.workerConfig),
      ...notificationWorkerOptions(this.workerConfig.JOB_LOCK_SECONDS),
    });
    this.worker.on('error', throttledWarning(this.logger, `${this.queueName} worker`));
    this.worker.on('failed', (job, error) => {
      if (job) this.logger.warn(`${job.id} (${job.name}) failed on attempt ${job.attemptsMade} of ${job.opts.attempts ?? 1}: ${error.message}`);
    });
  }

  /** Runs a job, counting its duration by outcome and its failures (metrics per channel: the queue is the channel). */
  private async measured(job: Job<Data>, token?: string): Promise<void> {
    const done = notificationMetrics.jobDuration.startTimer({ channel: this.queueName });
    try {
      await this.process(job, token);
      done({ outcome: 'sent' });
    } catch (error) {
      if (error instanceof DelayedError) {
        done({ outcome: 'delayed' });
      } else {
        const final = error instanceof UnrecoverableError || isLastRun(job);
        done({ outcome: final ? 'failed' : 'retried' });
        notificationMetrics.jobFailures.inc({ channel: this.queueName, final: String(final) });
      }
      throw error;
    }
  }

  /** Lets the jobs in hand finish (SIGTERM drains), then closes; with Redis away there is nothing to drain. */
  async onModuleDestroy(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const drained = this.connection?.status === 'ready' && (await settlesWithin(worker.close(), DRAIN_TIMEOUT_MS));
    if (!drained) {
      this.connection?.disconnect();
      await settlesWithin(worker.close(true), 1000);
    }
    this.connection?.disconnect();
  }
}
