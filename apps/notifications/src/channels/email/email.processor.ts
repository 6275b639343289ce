import { Inject, Injectable } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { UserLanguage } from '@homing/contracts';
import { RpcClient, RpcError } from '@homing/platform';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../../config/notifications.config';
import { recipientOf, type EmailJobData, type EmailKind } from '../../jobs/email-jobs';
import { QUEUES } from '../../jobs/persisted-names';
import { QueueWorker } from '../../jobs/queue-worker';
import { DeliveriesRepository } from '../deliveries.repository';
import { EmailRenderer } from './email-renderer';
import { MailTransport, SmtpRefusedError } from './mail-transport';

/**
 * The worker of the `email` queue: looks the recipient up when the job runs (address and language are never carried
 * in the job), renders the mail in their language, records the delivery, and hands it to SMTP. A job whose delivery
 * row says `sent` sends nothing again. Logs name job ids and outcomes only: never an address, code, token or link.
 */
@Injectable()
export class EmailProcessor extends QueueWorker<EmailJobData, EmailKind> {
  constructor(
    @Inject(NOTIFICATIONS_CONFIG) config: NotificationsConfig,
    private readonly rpc: RpcClient,
    private readonly renderer: EmailRenderer,
    private readonly transport: MailTransport,
    private readonly deliveries: DeliveriesRepository,
  ) {
    super(QUEUES.email, config);
  }

  async process(job: Job<EmailJobData, void, EmailKind>): Promise<void> {
    const jobId = job.id ?? '';
    try {
      const recipient = await this.recipient(job.data);
      if (!recipient) {
        // A finder who left no address: replies reach them by push or on the found page only.
        this.logger.log(`${jobId} (${job.name}) has no address to write to; nothing sent`);
        await this.scrub(job);
        return;
      }
      const delivery = await this.deliveries.begin(jobId, 'email', job.name);
      if (delivery.status === 'sent') {
        this.logger.log(`${jobId} (${job.name}) was sent before; not sending again`);
      } else {
        await this.send(jobId, recipient.email, this.renderer.render(job.name, recipient.language, job.data as never));
        await this.deliveries.markSent(jobId);
        this.logger.log(`${jobId} (${job.name}) sent in ${recipient.language} on attempt ${delivery.attempts}`);
      }
      await this.scrub(job);
    } catch (error) {
      const final = error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (final) await this.scrub(job);
      throw error;
    }
  }

  /** A user's address and language from identity; a finder's address from messaging (null when they left none). */
  private async recipient(data: EmailJobData): Promise<{ email: string; language: UserLanguage } | null> {
    const recipient = recipientOf(data);
    try {
      if ('userId' in recipient) return await this.rpc.request('identity.rpc.get-user', { userId: recipient.userId });
      const { email } = await this.rpc.request('messaging.rpc.get-finder-contact', { conversationId: recipient.conversationId });
      // Messaging keeps no language for a finder: English, the product's default.
      return email ? { email, language: 'en' } : null;
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
    await job.updateData(recipientOf(job.data) as EmailJobData).catch(() => undefined);
  }
}
