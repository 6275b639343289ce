interface Slot<V> {
  value: V;
  /** The move that last put this entry at the end of the order. */
  movedAt: number;
}

/**
 * A Map whose first entry is the one to drop when a cache is full: entries are moved to the end of the order when
 * set, and when used after falling into the older half of it (the gateway's scan and QR render caches).
 *
 * Moving an entry on every hit (a delete and a set) costs more than the hit itself: V8 rehashes a Map as deleted
 * slots pile up, and a hot tag is hit thousands of times a second (B2). An entry still in the newer half of the order
 * has nothing to gain from a move, so it stays where it is (lazy promotion). The first entry is therefore not
 * strictly the least recently used, but it was not used within about the last `size / 2` moves: it was moved at
 * least `size − 1` moves ago, and whenever it was used it had fallen less than half the order behind.
 */
export class RecentlyUsedMap<K, V> {
  private readonly slots = new Map<K, Slot<V>>();
  private moves = 0;

  get size(): number {
    return this.slots.size;
  }

  /** The value, as a use: an entry in the older half of the order moves to the end. */
  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    if (this.moves - slot.movedAt >= this.slots.size / 2) {
      this.slots.delete(key);
      slot.movedAt = ++this.moves;
      this.slots.set(key, slot);
    }
    return slot.value;
  }

  /** The value without counting a use. */
  peek(key: K): V | undefined {
    return this.slots.get(key)?.value;
  }

  /** Stores the value at the end of the order (the most recently used). */
  set(key: K, value: V): void {
    this.slots.delete(key);
    this.slots.set(key, { value, movedAt: ++this.moves });
  }

  delete(key: K): boolean {
    return this.slots.delete(key);
  }

  /** The first entry of the order: the one a full cache drops. */
  oldest(): [K, V] | undefined {
    for (const [key, slot] of this.slots) return [key, slot.value];
    return undefined;
  }

  clear(): void {
    this.slots.clear();
  }
}
