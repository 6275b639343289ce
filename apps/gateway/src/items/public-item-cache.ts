import { parseTagCode, type PublicItem, type RpcResponse } from '@homing/contracts';
import { RecentlyUsedMap } from '../caching/recently-used-map';

/** An item as anyone but its owner sees it, and whose it is (null while unclaimed): what items' `get-public` answers. */
/** What items answers for a scan; co-owners absent means none (an answer from before they existed). */
export type PublicItemRecord = Omit<RpcResponse<'items.rpc.get-public'>, 'coOwnerUserIds'> & { coOwnerUserIds?: string[] };

// About 500 bytes an item, and as much again for its anonymous answer's JSON: 50,000 items are some 50 MB at most.
const MAX_ITEMS = 50_000;
// A safety net only: items' events keep entries current; this bounds how long a change that no event announced (an
// event lost without a disconnect) could stay visible.
const TTL_MS = 5 * 60_000;

interface Entry {
  record: PublicItemRecord;
  expiresAt: number;
  /** The anonymous scan's JSON answer, made at the first such scan and sent as it is from then on. */
  anonymousJson?: string;
}

interface Loading {
  promise: Promise<PublicItemRecord>;
  /** A change (or a lost connection) came after the read started: its answer is served once, never kept. */
  stale: boolean;
}

/**
 * Tag scans' public item fields, per gateway process (ARCHITECTURE §7): a repeated scan is answered without NATS,
 * items or PostgreSQL. Kept current by items' events, which every replica hears (`ItemEvents`); items not used lately
 * (RecentlyUsedMap's CLOCK rule) are dropped past `maxItems`, and entries expire after a TTL in case an event was missed anyway.
 *
 * Nothing is kept unless the events are being heard (`enable()`), and a read that a change overtook is never kept,
 * so an event cannot be lost between a read and its storing. Unknown codes are not kept (their 404s count against
 * the client's unknown-code limit every time).
 */
export class PublicItemCache {
  private readonly entries = new RecentlyUsedMap<string, Entry>();
  private readonly loading = new Map<string, Loading>();
  private enabled = false;

  constructor(
    readonly maxItems = MAX_ITEMS,
    private readonly ttlMs = TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The item of a parsed code as this viewer sees it: from memory when known, else from `load` (concurrent scans of
   * one code share one read). `is_owner` and `user_id` are worked out per viewer.
   */
  async get(code: string, viewerUserId: string | null, load: () => Promise<PublicItemRecord>): Promise<PublicItem> {
    return viewedBy(this.lookUp(code) ?? (await this.load(code, load)), viewerUserId);
  }

  /** The item as this viewer sees it when it is in memory, without waiting (the QR image's existence check). */
  getKnown(code: string, viewerUserId: string | null): PublicItem | undefined {
    const record = this.lookUp(code);
    return record && viewedBy(record, viewerUserId);
  }

  /**
   * The JSON answer to an anonymous scan of a code in memory, without waiting: the hot path of the scan (B1, B2). It is
   * the same for every finder, so it is serialised once per entry rather than once per scan.
   */
  getKnownAnonymousJson(code: string): string | undefined {
    const entry = this.liveEntry(code);
    if (!entry) return undefined;
    entry.anonymousJson ??= JSON.stringify(viewedBy(entry.record, null));
    return entry.anonymousJson;
  }

  /** Events are heard from now on: entries may be kept. Starts empty (anything before may have been missed). */
  enable(): void {
    this.clear();
    this.enabled = this.maxItems > 0;
  }

  /** Events may be missed from now on (NATS disconnected): nothing is kept until `enable()`. */
  disable(): void {
    this.enabled = false;
    this.clear();
  }

  /** An event said the item changed (or is gone). */
  invalidate(code: string): void {
    this.entries.delete(code);
    const loading = this.loading.get(code);
    if (loading) {
      loading.stale = true;
      // A scan from now on reads anew rather than share an answer from before the change.
      this.loading.delete(code);
    }
  }

  /**
   * A change of the item made through this gateway: once it is answered (or failed: a timeout may still have
   * changed it), this replica forgets the item, so its caller's next scan shows the change even before the event
   * comes. Other replicas learn of it from the event.
   */
  async changing<T>(input: string, change: Promise<T>): Promise<T> {
    try {
      return await change;
    } finally {
      const code = parseTagCode(input);
      if (code) this.invalidate(code);
    }
  }

  clear(): void {
    this.entries.clear();
    for (const loading of this.loading.values()) loading.stale = true;
    this.loading.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private lookUp(code: string): PublicItemRecord | undefined {
    return this.liveEntry(code)?.record;
  }

  private liveEntry(code: string): Entry | undefined {
    const entry = this.entries.get(code);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    this.entries.delete(code);
    return undefined;
  }

  private load(code: string, load: () => Promise<PublicItemRecord>): Promise<PublicItemRecord> {
    const pending = this.loading.get(code);
    if (pending) return pending.promise;
    const loading: Loading = { promise: load(), stale: !this.enabled };
    this.loading.set(code, loading);
    loading.promise.then(
      (record) => {
        if (this.loading.get(code) === loading) this.loading.delete(code);
        if (!loading.stale && this.enabled) this.keep(code, record);
      },
      () => {
        if (this.loading.get(code) === loading) this.loading.delete(code);
      },
    );
    return loading.promise;
  }

  private keep(code: string, record: PublicItemRecord): void {
    this.entries.set(code, { record: { item: Object.freeze(record.item), ownerUserId: record.ownerUserId, coOwnerUserIds: record.coOwnerUserIds }, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > this.maxItems) this.entries.dropNext();
  }
}

/**
 * What a viewer sees of an item: its owner also sees that it is theirs, and their own id; a co-owner sees it as
 * theirs too (they read and answer its thread), with their role.
 */
export function viewedBy({ item, ownerUserId, coOwnerUserIds = [] }: PublicItemRecord, viewerUserId: string | null): PublicItem {
  if (viewerUserId === null) return item;
  if (viewerUserId === ownerUserId) return { ...item, is_owner: true, user_id: ownerUserId, ...(coOwnerUserIds.length > 0 ? { role: 'owner' as const, shared: true } : {}) };
  if (coOwnerUserIds.includes(viewerUserId)) return { ...item, is_owner: true, role: 'co-owner', shared: true };
  return item;
}
