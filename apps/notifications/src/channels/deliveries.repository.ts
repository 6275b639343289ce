import { Injectable } from '@nestjs/common';
import { Database, prepared, type Transaction } from '@homing/platform';
import type { Channel } from '../jobs/job-ids';

export type DeliveryStatus = 'sending' | 'sent' | 'failed' | 'skipped';

/** One run of a notification job: what its delivery row is written with. */
export interface DeliveryAttempt {
  jobId: string;
  channel: Channel;
  kind: string;
  /** The job's runs so far, this one included (BullMQ's `attemptsStarted`: retries and a stalled worker's restart). */
  attempts: number;
}

/** A job's runs so far, this one included: BullMQ counts starts (`attemptsStarted`); failures, if a job predates that. */
export function runsOf(job: { attemptsStarted?: number; attemptsMade: number }): number {
  return job.attemptsStarted || job.attemptsMade + 1;
}

/**
 * The delivery row as one upsert of an attempt's outcome, $1–$6: job id, channel, kind, status, attempts, error. A
 * `sent` row stays sent.
 */
const RECORD_OUTCOME = `INSERT INTO deliveries AS d (job_id, channel, kind, status, attempts, last_error, sent_at)
  VALUES ($1, $2, $3, $4::text, $5, $6, CASE WHEN $4::text = 'sent' THEN now() END)
  ON CONFLICT (job_id) DO UPDATE SET
    status = CASE WHEN d.status = 'sent' THEN 'sent' ELSE EXCLUDED.status END,
    attempts = GREATEST(d.attempts, EXCLUDED.attempts),
    last_error = CASE WHEN d.status = 'sent' THEN d.last_error ELSE EXCLUDED.last_error END,
    sent_at = COALESCE(d.sent_at, EXCLUDED.sent_at),
    updated_at = now()`;
// Every run reads its job's row first and every attempt writes its outcome (B3): both kept prepared on each connection.
const STATUS_OF_JOB = prepared('SELECT status FROM deliveries WHERE job_id = $1');

/**
 * The `deliveries` table: one row per job id, written with the outcome of each run (sent, skipped, failed, or
 * `sending` again after a temporary failure), so a run that sends costs one read and one write (B3, B5). A job that
 * runs again (a retry, a stalled worker's job, a replayed event) reads `sent` first and sends nothing. A run that dies
 * while sending leaves no row, and its job is run again: as before, at least once, never twice after `sent`.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly database: Database) {}

  /** Whether an earlier run of the job already delivered. */
  async sentBefore(jobId: string): Promise<boolean> {
    const row = await this.database.one<{ status: DeliveryStatus }>(STATUS_OF_JOB, [jobId]);
    return row?.status === 'sent';
  }

  /** The statement that records an attempt as sent, for `OutboxWriter.recordAlong` when a receipt event goes with it. */
  sentStatement(attempt: DeliveryAttempt): { sql: string; parameters: unknown[] } {
    return outcomeStatement(attempt, 'sent', null);
  }

  async markSent(attempt: DeliveryAttempt): Promise<void> {
    await this.record(this.sentStatement(attempt));
  }

  /** Nothing to send after all (a delayed e-mail whose messages were read meanwhile, a scan alert whose scan is gone). */
  async markSkipped(attempt: DeliveryAttempt, reason: string): Promise<void> {
    await this.record(outcomeStatement(attempt, 'skipped', reason));
  }

  /**
   * Erasure: every delivery record of a job addressed to one of these recipients, by the job id's last part
   * (`<channel>_<event id>_<recipient id>`, `notificationJobId`). Compared as a suffix with `right()`, not LIKE, so no
   * character of an id is a wildcard; every recipient id here is a UUID, 36 characters. Returns how many.
   */
  deleteAllTo(recipientIds: readonly string[], transaction?: Transaction): Promise<number> {
    return this.database.affected(
      `DELETE FROM deliveries WHERE right(job_id, 37) = ANY(SELECT '_' || id FROM unnest($1::text[]) AS id)`,
      [recipientIds],
      transaction,
    );
  }

  /** `failed` for good (a permanent refusal); a temporary failure is `sending` (to be tried again) and notes why. */
  async markFailed(attempt: DeliveryAttempt, reason: string, permanent: boolean): Promise<void> {
    await this.record(outcomeStatement(attempt, permanent ? 'failed' : 'sending', reason));
  }

  private async record({ sql, parameters }: { sql: string; parameters: unknown[] }): Promise<void> {
    await this.database.affected(prepared(sql), parameters);
  }
}

/** RECORD_OUTCOME with an attempt's values; the error is cut to the column's 200 characters. */
function outcomeStatement(attempt: DeliveryAttempt, status: DeliveryStatus, error: string | null): { sql: string; parameters: unknown[] } {
  return { sql: RECORD_OUTCOME, parameters: [attempt.jobId, attempt.channel, attempt.kind, status, attempt.attempts, error?.slice(0, 200) ?? null] };
}
