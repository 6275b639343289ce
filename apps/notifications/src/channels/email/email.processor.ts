import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import IORedis from 'ioredis';
import type { User } from '@homing/contracts';
import { RpcClient, RpcError } from '@homing/platform';
import { bullmqPrefixOf, NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../../config/notifications.config';
import type { EmailJobData, EmailKind } from '../../jobs/email-jobs';
import { QUEUES } from '../../jobs/persisted-names';
import { settlesWithin, throttledWarning } from '../../jobs/redis-connection';
import { NOTIFICATION_WORKER_OPTIONS } from '../../jobs/queue-settings';
import { DeliveriesRepository } from './deliveries.repository';
import { EmailRenderer } from './email-renderer';
import { MailTransport, SmtpRefusedError } from './mail-transport';

// SIGTERM: jobs in hand get this long to finish (SMTP timeouts are shorter), inside the service's 25 s deadline.
const DRAIN_TIMEOUT_MS = 15_000;

/**
 * The worker of the `email` queue: looks the recipient up when the job runs (address and language are never carried
 * in the job), renders the mail in their language, records the delivery, and hands it to SMTP. A job whose delivery
 * row says `sent` sends nothing again. Logs name job ids and outcomes only: never an address, code, token or link.
 */
@Injectable()
export class EmailProcessor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EmailProcessor.name);
  private worker?: Worker<EmailJobData, void, EmailKind>;
  private connection?: IORedis;

  constructor(
    @Inject(NOTIFICATIONS_CONFIG) private readonly config: NotificationsConfig,
    private readonly rpc: RpcClient,
    private readonly renderer: EmailRenderer,
    private readonly transport: MailTransport,
    private readonly deliveries: DeliveriesRepository,
  ) {}

  onApplicationBootstrap(): void {
    // A hybrid app runs bootstrap hooks once per server: start once.
    if (this.worker) return;
    // Workers block on Redis: BullMQ requires commands that wait for a reconnect instead of failing.
    this.connection = new IORedis(this.config.REDIS_URL, { maxRetriesPerRequest: null, connectionName: 'notifications-email-worker' });
    this.connection.on('error', () => undefined);
    this.worker = new Worker<EmailJobData, void, EmailKind>(QUEUES.email, (job) => this.process(job), {
      connection: this.connection,
      prefix: bullmqPrefixOf(this.config),
      ...NOTIFICATION_WORKER_OPTIONS,
    });
    this.worker.on('error', throttledWarning(this.logger, 'email worker'));
    this.worker.on('failed', (job, error) => {
      if (job) this.logger.warn(`${job.id} (${job.name}) failed on attempt ${job.attemptsMade} of ${job.opts.attempts ?? 1}: ${error.message}`);
    });
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

  async process(job: Job<EmailJobData, void, EmailKind>): Promise<void> {
    const jobId = job.id ?? '';
    try {
      const user = await this.recipient(job.data.userId);
      const delivery = await this.deliveries.begin(jobId, 'email', job.name);
      if (delivery.status === 'sent') {
        this.logger.log(`${jobId} (${job.name}) was sent before; not sending again`);
      } else {
        await this.send(jobId, user.email, this.renderer.render(job.name, user.language, job.data as never));
        await this.deliveries.markSent(jobId);
        this.logger.log(`${jobId} (${job.name}) sent in ${user.language} on attempt ${delivery.attempts}`);
      }
      await this.scrub(job);
    } catch (error) {
      const final = error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (final) await this.scrub(job);
      throw error;
    }
  }

  private async recipient(userId: string): Promise<User> {
    try {
      return await this.rpc.request('identity.rpc.get-user', { userId });
    } catch (error) {
      // The user is gone: nobody to write to, now or later.
      if (error instanceof RpcError && error.body.status === 404) throw new UnrecoverableError('recipient not found');
      throw error;
    }
  }

  private async send(jobId: string, address: string, email: Parameters<MailTransport['send']>[1]): Promise<void> {
    try {
      await this.transport.send(address, email, jobId);
    } catch (error) {
      if (!(error instanceof SmtpRefusedError)) throw error;
      await this.deliveries.markFailed(jobId, error.message, error.permanent);
      if (error.permanent) throw new UnrecoverableError(error.message);
      throw error;
    }
  }

  /**
   * Identity keeps only hashes of codes and tokens, so the job must carry them; once the job is done (sent, or failed
   * for good) they leave Redis, and the kept job holds the recipient's id alone.
   */
  private async scrub(job: Job<EmailJobData, void, EmailKind>): Promise<void> {
    await job.updateData({ userId: job.data.userId } as EmailJobData).catch(() => undefined);
  }
}
