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
 * How long new lookups may wait for a batch that is out: they go together once it is answered, or once it has been out
 * this long. Under load, batches grow with the load rather than with the event loop's turns (B1: a larger batch costs
 * items, NATS and PostgreSQL less per code); a batch that hangs (an items replica that died with it) holds the next
 * lookups back for no longer than this, not for its timeout.
 */
export const BATCH_HOLD_MS = 2;

/**
 * The scans that miss the gateway's memory are asked of items together: one `items.rpc.get-public-many`, one items
 * handler and one PostgreSQL statement for all of them, instead of one each. A scan that arrives with no batch out
 * waits only for the rest of the turn of the event loop (`setImmediate`), so a lone scan is not delayed; while a
 * batch is out (BATCH_HOLD_MS), the scans that arrive meanwhile wait for its answer and then go as the next batch.
 * A batch holds at most PUBLIC_ITEMS_BATCH_MAX codes; the cache in front (PublicItemCache) already asks once for
 * concurrent scans of a code. The call runs in the request context of the scan that started the batch, so items'
 * logs show that scan's correlation id for all of them.
 */
export class PublicItemLookups {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private held?: NodeJS.Timeout;
  /** Batches sent and not answered yet, and when the latest of them was sent. */
  private out = 0;
  private lastSentAt = 0;

  constructor(
    private readonly ask: AskItems,
    private readonly maxBatch = PUBLIC_ITEMS_BATCH_MAX,
    private readonly holdMs = BATCH_HOLD_MS,
  ) {}

  /** The record of a canonical code, or null if items has no such tag. Rejects as the batch's request failed. */
  lookUp(code: string): Promise<PublicItemRecord | null> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ code, resolve, reject });
      if (this.waiting.length >= this.maxBatch) this.send();
      else this.schedule();
    });
  }

  /** Sends what waits at the end of this turn, or, while a young batch is out, once it is answered or has aged. */
  private schedule(): void {
    if (this.scheduled || this.held) return;
    const holdLeft = this.out > 0 ? this.lastSentAt + this.holdMs - performance.now() : 0;
    if (holdLeft > 0) this.held = setTimeout(this.sendHeld, holdLeft);
    else this.sendAtEndOfTurn();
  }

  private sendAtEndOfTurn(): void {
    this.scheduled = true;
    setImmediate(this.sendScheduled);
  }

  private readonly sendScheduled = (): void => {
    this.scheduled = false;
    this.send();
  };

  private readonly sendHeld = (): void => {
    this.held = undefined;
    this.send();
  };

  private endHold(): void {
    clearTimeout(this.held);
    this.held = undefined;
  }

  /** A batch was answered (or failed): what waited behind it goes now, at the end of this turn. */
  private readonly answered = (): void => {
    this.out -= 1;
    if (this.waiting.length === 0 || this.scheduled) return;
    this.endHold();
    this.sendAtEndOfTurn();
  };

  private send(): void {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    this.endHold();
    this.out += 1;
    this.lastSentAt = performance.now();
    let asked: Promise<(PublicItemRecord | null)[]>;
    try {
      asked = this.ask(batch.map((waiting) => waiting.code));
    } catch (error) {
      asked = Promise.reject(error);
    }
    asked.then(this.answered, this.answered);
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
