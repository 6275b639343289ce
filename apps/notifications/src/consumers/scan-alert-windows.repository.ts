import { Injectable } from '@nestjs/common';
import { SCAN_ALERT_MAIL_WINDOW_MINUTES } from '@homing/contracts';
import { Database, type Transaction } from '@homing/platform';

/** How long one scan e-mail covers an item: later scans in the window send no other. */
export const SCAN_ALERT_WINDOW_MS = SCAN_ALERT_MAIL_WINDOW_MINUTES * 60 * 1000;

/** The window a scan falls in: the event that opened it (the job's name) and that event's scan. */
export interface ScanAlertWindow {
  eventId: string;
  scanId: string;
}

interface WindowRow {
  event_id: string;
  scan_id: string;
}

/**
 * The `scan_alert_windows` table: per item, the window in force and the scan event that opened it. Plain SQL because
 * opening a window is one conditional upsert that must decide atomically between replicas.
 */
@Injectable()
export class ScanAlertWindowsRepository {
  constructor(private readonly database: Database) {}

  /**
   * The event whose e-mail covers a scan made at `scannedAt`: this event when it opens a new window (none yet, or the
   * last began 15 minutes or more before it), the opener of the window it falls in, or null for a scan older than the
   * window in force (an e-mail about a scan at or after it already told the owner).
   *
   * Times are the scans' own, carried by the event, so a redelivered or replayed event lands in the same window and
   * names the same job.
   */
  async windowOf(itemCode: string, eventId: string, scannedAt: Date, scanId: string): Promise<ScanAlertWindow | null> {
    const opened = await this.database.one<WindowRow>(
      `INSERT INTO scan_alert_windows (item_code, event_id, scan_id, started_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (item_code) DO UPDATE SET event_id = EXCLUDED.event_id, scan_id = EXCLUDED.scan_id, started_at = EXCLUDED.started_at
         WHERE scan_alert_windows.started_at <= EXCLUDED.started_at - make_interval(secs => $5::int / 1000.0)
       RETURNING event_id, scan_id`,
      [itemCode, eventId, scanId, scannedAt, SCAN_ALERT_WINDOW_MS],
    );
    if (opened) return { eventId: opened.event_id, scanId: opened.scan_id };
    const window = await this.database.one<WindowRow & { started_at: Date }>(
      'SELECT event_id, scan_id, started_at FROM scan_alert_windows WHERE item_code = $1',
      [itemCode],
    );
    if (!window || scannedAt.getTime() < window.started_at.getTime()) return null;
    return { eventId: window.event_id, scanId: window.scan_id };
  }

  /**
   * The item's window ends (a transfer): a scan of the next owner's opens a window of its own, for them. Joining the
   * previous owner's named the new owner's job after that window's scan, which the transfer deleted: no e-mail at all.
   */
  async forgetItem(transaction: Transaction, itemCode: string): Promise<void> {
    await this.database.affected('DELETE FROM scan_alert_windows WHERE item_code = $1', [itemCode], transaction);
  }
}
