interface Slot<V> {
  value: V;
  /** Used since the entry was set or last given its second chance. */
  used: boolean;
}

/**
 * A Map that says which entry a full cache should drop, approximately the least recently used (the gateway's scan
 * and QR render caches), by the CLOCK or "second chance" rule: a hit only marks its entry used; the entry to drop is
 * the first in the order not used since it was set or last passed over, and a used entry met on the way is marked
 * unused and moved to the end (its second chance).
 *
 * A hit therefore never reorders the Map. Moving an entry on every hit (a delete and a set) costs more than the hit
 * itself: V8 rehashes a Map as deleted slots pile up, and a hot tag is hit thousands of times a second (B1, B6). The
 * earlier rule (move a hit from the older half of the order) still moved on every hit whenever the hot codes were
 * most of the cache, as right after a start: 4 % of the gateway's CPU on a cached QR image. An entry used at least
 * once between two passes of the order is never dropped; moves happen only when something is dropped, at most one
 * per entry per pass.
 */
export class RecentlyUsedMap<K, V> {
  private readonly slots = new Map<K, Slot<V>>();

  get size(): number {
    return this.slots.size;
  }

  /** The value, as a use. */
  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.value;
  }

  /** The value without counting a use. */
  peek(key: K): V | undefined {
    return this.slots.get(key)?.value;
  }

  /** Stores the value at the end of the order. */
  set(key: K, value: V): void {
    this.slots.delete(key);
    this.slots.set(key, { value, used: false });
  }

  delete(key: K): boolean {
    return this.slots.delete(key);
  }

  /**
   * The entry a full cache drops: the first in the order not used since it was set or last passed over. Used entries
   * before it get their second chance (marked unused, moved to the end); after one pass every entry is unused, so
   * this ends.
   */
  nextToDrop(): [K, V] | undefined {
    for (;;) {
      const first = this.slots.entries().next();
      if (first.done) return undefined;
      const [key, slot] = first.value;
      if (!slot.used) return [key, slot.value];
      slot.used = false;
      this.slots.delete(key);
      this.slots.set(key, slot);
    }
  }

  clear(): void {
    this.slots.clear();
  }
}
