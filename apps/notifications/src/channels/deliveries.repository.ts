import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '@homing/platform';
import type { Channel } from '../jobs/job-ids';

export type DeliveryStatus = 'sending' | 'sent' | 'failed' | 'skipped';

/**
 * The `deliveries` table: one row per job id. Plain SQL because the claim is one upsert that must say, atomically,
 * whether an earlier run already sent.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly database: Database) {}

  /** Records an attempt before sending; returns `sent` when an earlier run of the same job already delivered. */
  async begin(jobId: string, channel: Channel, kind: string): Promise<{ status: DeliveryStatus; attempts: number }> {
    const row = await this.database.one<{ status: DeliveryStatus; attempts: number }>(
      `INSERT INTO deliveries (job_id, channel, kind, status, attempts) VALUES ($1, $2, $3, 'sending', 1)
       ON CONFLICT (job_id) DO UPDATE SET
         attempts = deliveries.attempts + 1,
         updated_at = now(),
         status = CASE WHEN deliveries.status = 'sent' THEN 'sent' ELSE 'sending' END
       RETURNING status, attempts`,
      [jobId, channel, kind],
    );
    if (!row) throw new Error(`the delivery of ${jobId} was not recorded`);
    return row;
  }

  /** In `transaction` when the delivery's receipt event must commit with it. */
  async markSent(jobId: string, transaction?: Transaction): Promise<void> {
    await this.database.affected(`UPDATE deliveries SET status = 'sent', sent_at = now(), updated_at = now(), last_error = NULL WHERE job_id = $1`, [jobId], transaction);
  }

  /** Nothing to send after all (a delayed e-mail whose messages were read meanwhile, a scan alert whose scan is gone). */
  async markSkipped(jobId: string, reason: string): Promise<void> {
    await this.database.affected(`UPDATE deliveries SET status = 'skipped', updated_at = now(), last_error = $2 WHERE job_id = $1 AND status <> 'sent'`, [jobId, reason.slice(0, 200)]);
  }

  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
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

  /** `failed` for good (a permanent refusal); a temporary failure keeps `sending` and only notes why. */
  async markFailed(jobId: string, reason: string, permanent: boolean): Promise<void> {
    await this.database.affected(
      `UPDATE deliveries SET status = CASE WHEN $3 THEN 'failed' ELSE status END, last_error = $2, updated_at = now() WHERE job_id = $1`,
      [jobId, reason.slice(0, 200), permanent],
    );
  }
}
