import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Channel } from '../jobs/email-jobs';

export type DeliveryStatus = 'sending' | 'sent' | 'failed';

/**
 * The `deliveries` table: one row per job id. Plain SQL because the claim is one upsert that must say, atomically,
 * whether an earlier run already sent.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records an attempt before sending; returns `sent` when an earlier run of the same job already delivered. */
  async begin(jobId: string, channel: Channel, kind: string): Promise<{ status: DeliveryStatus; attempts: number }> {
    const rows: Array<{ status: DeliveryStatus; attempts: number }> = await this.dataSource.query(
      `INSERT INTO deliveries (job_id, channel, kind, status, attempts) VALUES ($1, $2, $3, 'sending', 1)
       ON CONFLICT (job_id) DO UPDATE SET
         attempts = deliveries.attempts + 1,
         updated_at = now(),
         status = CASE WHEN deliveries.status = 'sent' THEN 'sent' ELSE 'sending' END
       RETURNING status, attempts`,
      [jobId, channel, kind],
    );
    return rows[0];
  }

  async markSent(jobId: string): Promise<void> {
    await this.dataSource.query(`UPDATE deliveries SET status = 'sent', sent_at = now(), updated_at = now(), last_error = NULL WHERE job_id = $1`, [jobId]);
  }

  /** `failed` for good (a permanent refusal); a temporary failure keeps `sending` and only notes why. */
  async markFailed(jobId: string, reason: string, permanent: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE deliveries SET status = CASE WHEN $3 THEN 'failed' ELSE status END, last_error = $2, updated_at = now() WHERE job_id = $1`,
      [jobId, reason.slice(0, 200), permanent],
    );
  }
}
