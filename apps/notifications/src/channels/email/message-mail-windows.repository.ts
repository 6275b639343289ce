import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** How long one new-message e-mail covers a conversation: later messages in the window send no other (A4). */
export const MESSAGE_MAIL_WINDOW_MS = 15 * 60 * 1000;

/**
 * The `message_mail_windows` table: per conversation, the window in force and the event that opened it. Plain SQL
 * because opening a window is one conditional upsert that must decide atomically between replicas.
 */
@Injectable()
export class MessageMailWindowsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The event whose e-mail covers a finder's message that occurred at `occurredAt`: this event when it opens a new
   * window (none yet, or the last began 15 minutes or more before it), the opener of the window it falls in, or null
   * for a message older than the window in force (an e-mail at or after it already told the owner).
   *
   * Times are the events' own, so a redelivered or replayed event lands in the same window and names the same job.
   */
  async windowOf(conversationId: string, eventId: string, occurredAt: Date): Promise<string | null> {
    const opened: Array<{ event_id: string }> = await this.dataSource.query(
      `INSERT INTO message_mail_windows (conversation_id, event_id, started_at) VALUES ($1, $2, $3)
       ON CONFLICT (conversation_id) DO UPDATE SET event_id = EXCLUDED.event_id, started_at = EXCLUDED.started_at
         WHERE message_mail_windows.started_at <= EXCLUDED.started_at - make_interval(secs => $4::int / 1000.0)
       RETURNING event_id`,
      [conversationId, eventId, occurredAt, MESSAGE_MAIL_WINDOW_MS],
    );
    if (opened.length > 0) return opened[0].event_id;
    const current: Array<{ event_id: string; started_at: Date }> = await this.dataSource.query(
      'SELECT event_id, started_at FROM message_mail_windows WHERE conversation_id = $1',
      [conversationId],
    );
    const window = current[0];
    if (!window || occurredAt.getTime() < window.started_at.getTime()) return null;
    return window.event_id;
  }
}
