import { Injectable, Logger } from '@nestjs/common';
import { Database, prepared, type Transaction } from '@homing/platform';
import type { Channel } from '../jobs/job-ids';

export type DeliveryStatus = 'sending' | 'sent' | 'failed' | 'skipped';

/** One run of a notification job: what its delivery row is claimed and written with. */
export interface DeliveryAttempt {
  jobId: string;
  channel: Channel;
  kind: string;
  /** The job's runs so far, this one included (BullMQ's `attemptsStarted`: retries and a stalled worker's restart). */
  attempts: number;
  /** This run's own random id: the claim it holds is cleared by this run's outcome only. */
  claimToken: string;
}

/** What a run may do, decided by its claim on the job's delivery row. */
export type DeliveryClaim =
  | { outcome: 'claimed' }
  | { outcome: 'sent-before' }
  /** Another run of the job holds the row until then (it may still be sending): come back after it. */
  | { outcome: 'held-elsewhere'; until: Date };

/** A run that found the row held comes back this long after the claim ends (PostgreSQL's and the worker's clocks). */
const CLAIM_MARGIN_MS = 1000;

/** Why a run that found its job's row held by another run's claim was put back (its job's log line and delay). */
export const HELD_ELSEWHERE = 'another run of this job holds its delivery';

/** A job's runs so far, this one included: BullMQ counts starts (`attemptsStarted`); failures, if a job predates that. */
export function runsOf(job: { attemptsStarted?: number; attemptsMade: number }): number {
  return job.attemptsStarted || job.attemptsMade + 1;
}


/**
 * A run's claim, $1–$6: job id, channel, kind, attempts, claim seconds, claim token. It takes the row unless the job
 * was sent or another run's claim still holds; it answers a row only when it took it. (`skipped` and `failed` rows are
 * taken: a job that runs again after them decides afresh, as it always has.)
 */
const CLAIM = prepared(`INSERT INTO deliveries AS d (job_id, channel, kind, status, attempts, claimed_until, claim_token)
  VALUES ($1, $2, $3, 'sending', $4, now() + make_interval(secs => $5), $6)
  ON CONFLICT (job_id) DO UPDATE SET
    status = 'sending',
    attempts = GREATEST(d.attempts, EXCLUDED.attempts),
    claimed_until = EXCLUDED.claimed_until,
    claim_token = EXCLUDED.claim_token,
    updated_at = now()
  WHERE d.status <> 'sent' AND (d.claimed_until IS NULL OR d.claimed_until <= now())
  RETURNING d.job_id`);
// Why a claim was refused (the rare path: a job sent before, or run twice at once).
const CLAIM_OF_JOB = prepared('SELECT status, claimed_until FROM deliveries WHERE job_id = $1');
// A run that ends without an outcome (an RPC failed) lets the job's next run claim at once.
const RELEASE = prepared('UPDATE deliveries SET claimed_until = NULL, claim_token = NULL WHERE job_id = $1 AND claim_token = $2');
// A run with nobody to write to (a user erased meanwhile, a finder who left no address) leaves no row, as before claims:
// an erased user's id must not come back in a row made after their erasure deleted theirs.
const FORGET = prepared("DELETE FROM deliveries WHERE job_id = $1 AND claim_token = $2 AND status <> 'sent'");

/**
 * An attempt's outcome on the row its claim made, $1–$5: job id, status, attempts, error, claim token. A `sent` row
 * stays sent; the run's own claim ends with its outcome (another run's is left to hold). An update, never an insert: a
 * row that is gone was deleted by an erasure while the run was sending (or by the retention), and the outcome must not
 * bring back a row that ties the erased person's id to a job. Nothing is recorded then, and a later run of the job
 * claims afresh and finds nobody to write to.
 */
const RECORD_OUTCOME = `UPDATE deliveries AS d SET
    status = CASE WHEN d.status = 'sent' THEN 'sent' ELSE $2::text END,
    attempts = GREATEST(d.attempts, $3),
    last_error = CASE WHEN d.status = 'sent' THEN d.last_error ELSE $4::text END,
    sent_at = COALESCE(d.sent_at, CASE WHEN $2::text = 'sent' THEN now() END),
    claimed_until = CASE WHEN d.claim_token = $5::uuid THEN NULL ELSE d.claimed_until END,
    claim_token = CASE WHEN d.claim_token = $5::uuid THEN NULL ELSE d.claim_token END,
    updated_at = now()
  WHERE d.job_id = $1`;

/**
 * The `deliveries` table: one row per job id, claimed by a run before it sends and written with the run's outcome
 * (sent, skipped, failed, or `sending` again after a temporary failure). A job that runs again (a retry, a stalled
 * worker's job, a replayed event) finds `sent` and sends nothing; one that runs while another run of it still holds its
 * claim (a worker that lost its BullMQ lock but is still sending) waits for the claim to end rather than send as well.
 * A run that dies while sending leaves its claim, which lapses after `DELIVERY_CLAIM_SECONDS`: the job runs again then,
 * at least once, and never twice after `sent`. The claim is a time bound: two runs of one job cannot both send unless
 * one is stalled (frozen, or its sends slower than their time-outs) for longer than its claim has left.
 */
@Injectable()
export class DeliveriesRepository {
  private readonly logger = new Logger('deliveries');

  constructor(private readonly database: Database) {}

  /** Takes the job's row for this run for `seconds`, unless it was sent or another run holds it (then: until when). */
  async claim(attempt: DeliveryAttempt, seconds: number): Promise<DeliveryClaim> {
    const { jobId, channel, kind, attempts, claimToken } = attempt;
    if (await this.database.one(CLAIM, [jobId, channel, kind, attempts, seconds, claimToken])) return { outcome: 'claimed' };
    const row = await this.database.one<{ status: DeliveryStatus; claimed_until: Date | null }>(CLAIM_OF_JOB, [jobId]);
    if (row?.status === 'sent') return { outcome: 'sent-before' };
    // Another run holds it (or its claim ended a moment ago: come back at once).
    return { outcome: 'held-elsewhere', until: row?.claimed_until ?? new Date() };
  }

  /**
   * Ends this run's claim without an outcome, so the job's next run need not wait for it to lapse. Never fails: a
   * claim that cannot be ended (the database is away) lapses on its own.
   */
  async release(attempt: DeliveryAttempt): Promise<void> {
    try {
      await this.database.affected(RELEASE, [attempt.jobId, attempt.claimToken]);
    } catch (error) {
      this.logger.warn(`${attempt.jobId}: its claim is left to lapse: ${(error as Error).message}`);
    }
  }

  /**
   * Removes the row this run claimed, when there turned out to be nobody to deliver to. Never fails: a row left
   * behind is `sending` with a claim that lapses, and goes with the delivery retention.
   */
  async forget(attempt: DeliveryAttempt): Promise<void> {
    try {
      await this.database.affected(FORGET, [attempt.jobId, attempt.claimToken]);
    } catch (error) {
      this.logger.warn(`${attempt.jobId}: its row is left to the retention: ${(error as Error).message}`);
    }
  }

  /** Whether the job was sent, for a run that finds its data scrubbed by an earlier run (sent, or failed for good). */
  async wasSent(jobId: string): Promise<boolean> {
    return (await this.database.one<{ status: DeliveryStatus }>(CLAIM_OF_JOB, [jobId]))?.status === 'sent';
  }

  /** When a run that found the row held should come back: once the claim has ended, with a margin for clocks. */
  static retryAfter(claim: { until: Date }): number {
    return Math.max(claim.until.getTime(), Date.now()) + CLAIM_MARGIN_MS;
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
  return { sql: RECORD_OUTCOME, parameters: [attempt.jobId, status, attempt.attempts, error?.slice(0, 200) ?? null, attempt.claimToken] };
}
