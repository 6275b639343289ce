import { MAX_SECOND_CHANCES, RecentlyUsedMap } from './recently-used-map';

function mapOf(...keys: string[]): RecentlyUsedMap<string, string> {
  const map = new RecentlyUsedMap<string, string>();
  for (const key of keys) map.set(key, key.toUpperCase());
  return map;
}

/** What a cache bounded to `capacity` entries does after each set. */
function dropPast(map: RecentlyUsedMap<string, string>, capacity: number): void {
  while (map.size > capacity) map.dropNext();
}

describe('RecentlyUsedMap', () => {
  it('stores, reads, replaces and deletes values', () => {
    const map = mapOf('a', 'b');
    map.set('a', 'A2');
    expect([map.get('a'), map.peek('b'), map.get('c'), map.size]).toEqual(['A2', 'B', undefined, 2]);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    map.clear();
    expect([map.size, map.dropNext()]).toEqual([0, undefined]);
  });

  it('drops the first entry not used since it was set, passing over the used ones and marking them unused', () => {
    const map = mapOf('a', 'b', 'c', 'd');
    map.get('a');
    map.get('b');
    expect(map.dropNext()).toEqual(['c', 'C']);
    expect(map.dropNext()).toEqual(['d', 'D']);
    // Round again: a and b were passed over, so unused now.
    expect(map.dropNext()).toEqual(['a', 'A']);
    expect([map.size, map.peek('b')]).toEqual([1, 'B']);
  });

  it('goes on from where it stopped, so an entry used before the hand comes round again stays', () => {
    const map = mapOf('a', 'b', 'c', 'd');
    expect(map.dropNext()).toEqual(['a', 'A']);
    map.get('b');
    map.set('e', 'E');
    expect(map.dropNext()).toEqual(['c', 'C']);
    expect(map.dropNext()).toEqual(['d', 'D']);
    expect(map.dropNext()).toEqual(['e', 'E']);
    expect(map.dropNext()).toEqual(['b', 'B']);
    expect(map.size).toBe(0);
  });

  it('counts a get as a use and never a peek, and a set as new', () => {
    const map = mapOf('a', 'b');
    map.peek('a');
    expect(map.dropNext()).toEqual(['a', 'A']);
    map.get('b');
    map.set('b', 'B2');
    expect(map.dropNext()).toEqual(['b', 'B2']);
  });

  it('drops the first entry when every entry was used, after one round', () => {
    const map = mapOf('a', 'b', 'c');
    for (const key of ['c', 'a', 'b']) map.get(key);
    expect(map.dropNext()).toEqual(['a', 'A']);
    expect(map.size).toBe(2);
  });

  it('passes over at most MAX_SECOND_CHANCES used entries in one drop, then drops the one it reached', () => {
    const keys = Array.from({ length: MAX_SECOND_CHANCES + 10 }, (_, index) => `k${index}`);
    const map = mapOf(...keys);
    for (const key of keys) map.get(key);
    expect(map.dropNext()).toEqual([keys[MAX_SECOND_CHANCES], keys[MAX_SECOND_CHANCES].toUpperCase()]);
  });

  it('keeps a hot set through a stream of one-off keys when dropping past a size', () => {
    const capacity = 100;
    const hot = Array.from({ length: 20 }, (_, index) => `hot-${index}`);
    const map = mapOf(...hot);
    for (let index = 0; index < 10_000; index += 1) {
      map.get(hot[index % hot.length]);
      map.set(`cold-${index}`, 'x');
      dropPast(map, capacity);
    }
    expect(hot.filter((key) => map.peek(key) === undefined)).toEqual([]);
    expect(map.size).toBe(capacity);
  });

  it('keeps a hot set used less often than the one-off keys arrive, as long as each is used once a round', () => {
    const capacity = 100;
    const hot = Array.from({ length: 10 }, (_, index) => `hot-${index}`);
    const map = mapOf(...hot);
    for (let index = 0; index < 10_000; index += 1) {
      // Each hot key once every 50 one-off keys: well within one round of 100 entries.
      if (index % 5 === 0) map.get(hot[(index / 5) % hot.length]);
      map.set(`cold-${index}`, 'x');
      dropPast(map, capacity);
    }
    expect(hot.filter((key) => map.peek(key) === undefined)).toEqual([]);
  });

  it('hits at least as often as exact least-recently-used on codes scanned with Zipf popularity', () => {
    // A seeded stream: 10,000 codes, the i-th most popular scanned in proportion to 1 / i^0.9; a cache of 1,000.
    let seed = 29;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const weights: number[] = [];
    let total = 0;
    for (let rank = 1; rank <= 10_000; rank += 1) weights.push((total += 1 / rank ** 0.9));
    const draw = () => {
      const target = random() * total;
      let [low, high] = [0, weights.length - 1];
      while (low < high) {
        const middle = (low + high) >> 1;
        if (weights[middle] < target) low = middle + 1;
        else high = middle;
      }
      return `code-${low}`;
    };
    const stream = Array.from({ length: 100_000 }, draw);
    const capacity = 1000;

    const clock = new RecentlyUsedMap<string, true>();
    let clockHits = 0;
    // Exact least-recently-used: every hit moved to the end, the first entry dropped.
    const exact = new Map<string, true>();
    let exactHits = 0;
    for (const code of stream) {
      if (clock.get(code)) clockHits += 1;
      else {
        clock.set(code, true);
        if (clock.size > capacity) clock.dropNext();
      }
      if (exact.delete(code)) exactHits += 1;
      exact.set(code, true);
      if (exact.size > capacity) exact.delete(exact.keys().next().value as string);
    }
    expect(clockHits).toBeGreaterThanOrEqual(exactHits);
  });
});
