import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import type { EventData } from '@homing/contracts';
import { isTransientFailure, OutboxWriter } from '@homing/platform';
import { DeliveriesRepository, type DeliveryAttempt } from './deliveries.repository';

/** What a delivery told someone of: a message of a conversation (ids only). */
export type MessageReceipt = EventData<'notifications.message.delivered.v1'>;

// How long a run that has delivered keeps trying to record it while the database is away (a restart, a fail-over).
// Giving up fails the run, and the job's next run, finding no `sent` row, sends a second time. Well within a worker's
// shutdown grace (35 s in k8s/), which waits for the jobs in hand.
export const RECORD_SENT_PATIENCE_MS = 20_000;
const FIRST_RETRY_MS = 100;
const LONGEST_RETRY_MS = 2_000;

/**
 * Marks a delivery sent and, when it told someone of a message, records `notifications.message.delivered.v1` in the
 * same statement, so messaging's "delivered" exists exactly when the delivery does.
 */
@Injectable()
export class DeliveryReceipts {
  private readonly logger = new Logger(DeliveryReceipts.name);

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  /**
   * Called once the recipient has it (SMTP accepted the mail, the push service the push). A database that is away
   * for a moment is waited for, up to RECORD_SENT_PATIENCE_MS: the `sent` row is all that keeps the job's next run from
   * sending again. Writing it twice is harmless (the row stays `sent`; messaging marks a message delivered once).
   */
  async sent(attempt: DeliveryAttempt, receipt: MessageReceipt | null, patienceMs = RECORD_SENT_PATIENCE_MS): Promise<void> {
    const giveUpAt = Date.now() + patienceMs;
    for (let waitMs = FIRST_RETRY_MS; ; waitMs = Math.min(2 * waitMs, LONGEST_RETRY_MS)) {
      try {
        return await this.record(attempt, receipt);
      } catch (error) {
        if (!isTransientFailure(error) || Date.now() + waitMs > giveUpAt) throw error;
        this.logger.warn(`${attempt.jobId} was delivered; recording it waits for the database: ${(error as Error).message}`);
        await sleep(waitMs);
      }
    }
  }

  private async record(attempt: DeliveryAttempt, receipt: MessageReceipt | null): Promise<void> {
    if (!receipt) return this.deliveries.markSent(attempt);
    await this.outbox.recordAlong(this.deliveries.sentStatement(attempt), 'notifications.message.delivered.v1', receipt, { aggregateId: receipt.conversationId, version: receipt.messageId });
  }
}
