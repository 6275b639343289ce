import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { parseTagCode, ResponseCode, SCAN_HISTORY_DAYS, SCAN_HISTORY_MAX, type DeviceKind, type ScanHistory } from '@homing/contracts';
import { OutboxWriter, RpcError } from '@homing/platform';
import { ScansRepository } from './scans.repository';

const DAY_MS = 24 * 60 * 60_000;

/**
 * Scans of finder pages: recorded for claimed items only, shown to their owners for 30 days, and while an item is lost
 * announced with `items.item.scanned.v1` (ids and the time: where stays here, for notifications to ask).
 */
@Injectable()
export class ScansService {
  constructor(
    private readonly scans: ScansRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  async record(input: string, place: { city: string | null; country: string | null; deviceKind: DeviceKind }): Promise<{ scanId: string; lost: boolean }> {
    const code = parseTagCode(input);
    if (!code) throw itemNotFound();
    const scanId = uuidv7();
    return this.scans.transaction(async (transaction) => {
      const recorded = await this.scans.insert(transaction, { id: scanId, code, ...place });
      if (!recorded) throw itemNotFound();
      if (recorded.lost) {
        // Each scan is its own aggregate: nothing orders one scan's alert after another's.
        await this.outbox.record(
          transaction,
          'items.item.scanned.v1',
          { code, ownerUserId: recorded.owner_user_id, scanId, scannedAt: recorded.scanned_at.toISOString() },
          { aggregateId: scanId, version: 1 },
        );
      }
      return { scanId, lost: recorded.lost };
    });
  }

  async listOwned(input: string, ownerUserId: string, now = new Date()): Promise<ScanHistory> {
    const code = parseTagCode(input);
    const rows = code ? await this.scans.listOwned(code, ownerUserId, new Date(now.getTime() - SCAN_HISTORY_DAYS * DAY_MS), SCAN_HISTORY_MAX) : null;
    if (!rows) throw itemNotFound();
    return { scans: rows.map((row) => ({ scanned_at: row.scanned_at.toISOString(), city: row.city, country: row.country, device_kind: row.device_kind })) };
  }

  async get(scanId: string) {
    const row = await this.scans.findById(scanId);
    if (!row) throw RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'No such scan.');
    return { code: row.item_code, scannedAt: row.scanned_at.toISOString(), city: row.city, country: row.country, deviceKind: row.device_kind };
  }
}

function itemNotFound(): RpcError {
  return RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
}
