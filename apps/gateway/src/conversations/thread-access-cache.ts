import { createHash } from 'node:crypto';
import type { ThreadAccess } from '@homing/contracts';
import { OldestFirst } from '../caching/oldest-first';

// How long an answer of messaging's "who may read this thread" is reused. What can change it is seen in events and
// forgets it at once (a reset ends finders' access, a deleted item everyone's); the lifetime bounds what a missed
// event could leave behind.
const TTL_MS = 60_000;
const MAX_ENTRIES = 50_000;

export interface ThreadCaller {
  viewerUserId: string | null;
  finderToken: string | undefined;
}

interface Entry {
  access: ThreadAccess;
  expiresAt: number;
}

/**
 * Messaging's decisions on who may read an item's thread, kept briefly per caller and item, so a poll with nothing
 * new is answered without asking messaging again (and so without SQL). Only granted access is kept: a refusal is
 * asked again every time. Keys hold a hash of the finder token, never the token.
 */
export class ThreadAccessCache {
  private readonly entries = new Map<string, Entry>();
  private readonly oldest = new OldestFirst(this.entries);

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = TTL_MS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  get(itemCode: string, caller: ThreadCaller): ThreadAccess | undefined {
    const key = keyOf(itemCode, caller);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.access;
  }

  set(caller: ThreadCaller, access: ThreadAccess): void {
    const key = keyOf(access.itemCode, caller);
    this.entries.delete(key);
    this.entries.set(key, { access, expiresAt: this.now() + this.ttlMs });
    // The oldest entry goes first (Map order is insertion order).
    if (this.entries.size > this.maxEntries) this.oldest.drop();
  }

  /** A reset or a deletion changed who may read the item's thread. */
  forgetItem(itemCode: string): void {
    const prefix = `${itemCode}\n`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  /** Events may have been missed (NATS reconnected). */
  forgetAll(): void {
    this.entries.clear();
  }
}

function keyOf(itemCode: string, caller: ThreadCaller): string {
  const finder = caller.finderToken ? createHash('sha256').update(caller.finderToken).digest('base64url') : '';
  return `${itemCode}\n${caller.viewerUserId ?? ''}\n${finder}`;
}
