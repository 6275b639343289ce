import { SCAN_HISTORY_DAYS } from '@homing/contracts';
import { deleteInBatches, type Database, type RetentionRule } from '@homing/platform';
import type { ItemsConfig } from './config/items.config';

const DAY_MS = 24 * 60 * 60_000;
/** Days an invitation is kept once closed: its inviter can still see why a link stopped working. */
const INVITATION_KEPT_DAYS = 30;

/** What items stops keeping: a scan once its owner can no longer see it (SCAN_HISTORY_DAYS days), a closed invitation after 30 days. */
export function itemsRetentionRules(database: Database, config: Pick<ItemsConfig, 'RETENTION_BATCH_SIZE'>): RetentionRule[] {
  return [
    {
      name: 'scans-expired',
      purge: (now) =>
        deleteInBatches(database, {
          table: 'scans',
          where: 'scanned_at < $1::timestamptz',
          parameters: [new Date(now.getTime() - SCAN_HISTORY_DAYS * DAY_MS)],
          batchSize: config.RETENTION_BATCH_SIZE,
        }),
    },
    {
      // An invitation once it can no longer be used (accepted, withdrawn or expired), after 30 days to tell why.
      name: 'invitations-closed',
      purge: (now) =>
        deleteInBatches(database, {
          table: 'item_invitations',
          where: 'coalesce(accepted_at, cancelled_at, expires_at) < $1::timestamptz',
          parameters: [new Date(now.getTime() - INVITATION_KEPT_DAYS * DAY_MS)],
          batchSize: config.RETENTION_BATCH_SIZE,
        }),
    },
  ];
}
