import { Injectable } from '@nestjs/common';
import { Database, prepared } from '@homing/platform';

/** How long one new-message e-mail covers a conversation: later messages in the window send no other (A4). */
export const MESSAGE_MAIL_WINDOW_MS = 15 * 60 * 1000;

/** The window a finder's message falls in: the event that opened it (the job's name) and that event's message. */
export interface MessageMailWindow {
  eventId: string;
  messageId: number;
}

interface WindowRow {
  event_id: string;
  message_id: number | null;
}

// Windows opened before the message was kept: this message stands in for the opener (the owner reads all or none).
function windowOfRow(row: WindowRow, messageId: number): MessageMailWindow {
  return { eventId: row.event_id, messageId: row.message_id ?? messageId };
}

// Every finder's message to an owner opens or joins a window (B3): kept prepared on each connection.
const OPEN_WINDOW = prepared(
  `INSERT INTO message_mail_windows (conversation_id, event_id, started_at, message_id) VALUES ($1, $2, $3, $5)
   ON CONFLICT (conversation_id) DO UPDATE SET event_id = EXCLUDED.event_id, started_at = EXCLUDED.started_at, message_id = EXCLUDED.message_id
     WHERE message_mail_windows.started_at <= EXCLUDED.started_at - make_interval(secs => $4::int / 1000.0)
   RETURNING event_id, message_id::float8 AS message_id`,
);

/**
 * The `message_mail_windows` table: per conversation, the window in force and the event that opened it. Plain SQL
 * because opening a window is one conditional upsert that must decide atomically between replicas.
 */
@Injectable()
export class MessageMailWindowsRepository {
  constructor(private readonly database: Database) {}

  /**
   * The event whose e-mail covers a finder's message that occurred at `occurredAt`: this event when it opens a new
   * window (none yet, or the last began 15 minutes or more before it), the opener of the window it falls in, or null
   * for a message older than the window in force (an e-mail at or after it already told the owner).
   *
   * Times are the events' own, so a redelivered or replayed event lands in the same window and names the same job.
   */
  async windowOf(conversationId: string, eventId: string, occurredAt: Date, messageId: number): Promise<MessageMailWindow | null> {
    const opened = await this.database.one<WindowRow>(
      OPEN_WINDOW,
      [conversationId, eventId, occurredAt, MESSAGE_MAIL_WINDOW_MS, messageId],
    );
    if (opened) return windowOfRow(opened, messageId);
    const window = await this.database.one<WindowRow & { started_at: Date }>(
      'SELECT event_id, message_id::float8 AS message_id, started_at FROM message_mail_windows WHERE conversation_id = $1',
      [conversationId],
    );
    if (!window || occurredAt.getTime() < window.started_at.getTime()) return null;
    return windowOfRow(window, messageId);
  }
}
