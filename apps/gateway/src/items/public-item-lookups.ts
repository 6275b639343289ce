import { PUBLIC_ITEMS_BATCH_MAX } from '@homing/contracts';
import type { PublicItemRecord } from './public-item-cache';

/** Asks items about several canonical codes at once: a record per code, in the order asked, null where unknown. */
export type AskItems = (codes: string[]) => Promise<(PublicItemRecord | null)[]>;

interface Waiting {
  code: string;
  resolve(record: PublicItemRecord | null): void;
  reject(error: unknown): void;
}

/**
 * The scans that miss the gateway's memory in one turn of its event loop are asked of items together: one
 * `items.rpc.get-public-many`, one items handler and one PostgreSQL statement for all of them, instead of one each.
 * Under load many scans arrive together (B1: requests read from several connections in one poll of the loop); a scan
 * that arrives alone waits only for the rest of the turn (`setImmediate`). A batch holds at most
 * PUBLIC_ITEMS_BATCH_MAX codes; the cache in front (PublicItemCache) already asks once for concurrent scans of a code.
 * The call runs in the request context of the scan that started the batch, so items' logs show that scan's correlation
 * id for all of them.
 */
export class PublicItemLookups {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly ask: AskItems,
    private readonly maxBatch = PUBLIC_ITEMS_BATCH_MAX,
  ) {}

  /** The record of a canonical code, or null if items has no such tag. Rejects as the batch's request failed. */
  lookUp(code: string): Promise<PublicItemRecord | null> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ code, resolve, reject });
      if (this.waiting.length >= this.maxBatch) this.send();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.sendScheduled);
      }
    });
  }

  private readonly sendScheduled = (): void => {
    this.scheduled = false;
    this.send();
  };

  private send(): void {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    let asked: Promise<(PublicItemRecord | null)[]>;
    try {
      asked = this.ask(batch.map((waiting) => waiting.code));
    } catch (error) {
      asked = Promise.reject(error);
    }
    asked.then(
      (records) => {
        // An answer of another length is a broken contract, not a batch of unknown codes: fail them all.
        if (records.length !== batch.length) {
          const error = new Error(`items answered ${records.length} records for ${batch.length} codes`);
          for (const waiting of batch) waiting.reject(error);
          return;
        }
        batch.forEach((waiting, index) => waiting.resolve(records[index]));
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }
}
