import { SCAN_HISTORY_DAYS } from '@homing/contracts';
import { deleteInBatches, type Database, type RetentionRule } from '@homing/platform';
import type { ItemsConfig } from '../config/items.config';

const DAY_MS = 24 * 60 * 60_000;

/** What items stops keeping: a scan once its owner can no longer see it (SCAN_HISTORY_DAYS days). */
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
  ];
}
