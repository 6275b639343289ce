/** How many used entries one drop passes over at the most (see dropNext). */
export const MAX_SECOND_CHANCES = 256;

interface Slot<V> {
  value: V;
  /** Used since the entry was set or since the hand last passed it. */
  used: boolean;
}

/**
 * A Map that drops, when a cache is full, an entry not used lately (the gateway's scan and QR render caches), by the
 * CLOCK or "second chance" rule: a hit only marks its entry used; a hand goes round the entries in the Map's order,
 * passing over used ones (marking them unused) and dropping the first unused one it reaches.
 *
 * Why this rather than moving each hit to the end of the order (a delete and a set): that costs more than the hit
 * itself (V8 rehashes a Map as deleted slots pile up, and a hot tag is hit thousands of times a second: B1, B6), and
 * the rule the caches had before (move a hit from the older half only) still moved every hit when the hot codes were
 * most of the cache, as after a start: 4 % of the gateway's CPU on a cached QR image. The hand is one iterator kept
 * from drop to drop: an iterator started afresh for each drop would step over every slot deleted at the front of the
 * Map's table again, which made a full cache's drop cost 12 µs, against under 1 µs with the hand, with a better hit
 * rate (a Zipf-distributed stream of codes simulated both ways: 66 % against 62 % for 50,000 entries of 200,000
 * codes, 2026-12-02).
 */
export class RecentlyUsedMap<K, V> {
  private readonly slots = new Map<K, Slot<V>>();
  private hand: Iterator<[K, Slot<V>]> | undefined;

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

  /** Stores the value, unused yet, at the end of the order. */
  set(key: K, value: V): void {
    this.slots.delete(key);
    this.slots.set(key, { value, used: false });
  }

  delete(key: K): boolean {
    return this.slots.delete(key);
  }

  /**
   * Drops the next entry the hand reaches that was not used since it last passed, and says which. The hand passes
   * over MAX_SECOND_CHANCES used entries at the most, then drops the one it reached though used: one drop never
   * walks the whole cache, and that happens only when nearly every entry is in use, when any choice drops a used one.
   */
  dropNext(): [K, V] | undefined {
    if (this.slots.size === 0) return undefined;
    for (let passed = 0; ; passed += 1) {
      let step = this.hand?.next();
      if (step === undefined || step.done) {
        // Round again from the start of the order (a Map's iterator, once done, stays done).
        this.hand = this.slots.entries();
        step = this.hand.next();
        if (step.done) return undefined;
      }
      const [key, slot] = step.value;
      if (!slot.used || passed >= MAX_SECOND_CHANCES) {
        this.slots.delete(key);
        return [key, slot.value];
      }
      slot.used = false;
    }
  }

  clear(): void {
    this.slots.clear();
    this.hand = undefined;
  }
}
