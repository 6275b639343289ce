import { deleteInBatches, type Database, type RetentionRule } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import { MESSAGE_MAIL_WINDOW_MS } from '../consumers/message-mail-windows.repository';
import { SCAN_ALERT_WINDOW_MS } from '../consumers/scan-alert-windows.repository';

const DAY_MS = 24 * 60 * 60_000;
const HOUR_MS = 60 * 60_000;

/**
 * What notifications stops keeping: delivery records older than `DELIVERY_RETENTION_DAYS`, and new-message and
 * scan-alert mail windows once no event can still fall in them. A window is kept its 15 minutes plus the events stream's age: a
 * consumer catching up on old events still finds the window those events belong to, so no owner gets a second
 * e-mail for messages already announced.
 */
export function notificationsRetentionRules(
  database: Database,
  config: Pick<NotificationsConfig, 'RETENTION_BATCH_SIZE' | 'DELIVERY_RETENTION_DAYS' | 'JETSTREAM_EVENTS_MAX_AGE_HOURS'>,
): RetentionRule[] {
  const batchSize = config.RETENTION_BATCH_SIZE;
  return [
    {
      name: 'deliveries-past-retention',
      purge: (now) =>
        deleteInBatches(database, {
          table: 'deliveries',
          where: `created_at < $1::timestamptz - $2 * interval '1 millisecond'`,
          parameters: [now, config.DELIVERY_RETENTION_DAYS * DAY_MS],
          batchSize,
        }),
    },
    {
      name: 'message-mail-windows-closed',
      purge: (now) =>
        deleteInBatches(database, {
          table: 'message_mail_windows',
          where: `started_at < $1::timestamptz - $2 * interval '1 millisecond'`,
          parameters: [now, MESSAGE_MAIL_WINDOW_MS + config.JETSTREAM_EVENTS_MAX_AGE_HOURS * HOUR_MS],
          batchSize,
        }),
    },
    {
      name: 'scan-alert-windows-closed',
      purge: (now) =>
        deleteInBatches(database, {
          table: 'scan_alert_windows',
          where: `started_at < $1::timestamptz - $2 * interval '1 millisecond'`,
          parameters: [now, SCAN_ALERT_WINDOW_MS + config.JETSTREAM_EVENTS_MAX_AGE_HOURS * HOUR_MS],
          batchSize,
        }),
    },
  ];
}
