import { RecentlyUsedMap } from './recently-used-map';

function mapOf(...keys: string[]): RecentlyUsedMap<string, string> {
  const map = new RecentlyUsedMap<string, string>();
  for (const key of keys) map.set(key, key.toUpperCase());
  return map;
}

/** What a cache bounded to `capacity` entries does after each set. */
function dropPast(map: RecentlyUsedMap<string, string>, capacity: number): void {
  while (map.size > capacity) map.delete((map.nextToDrop() as [string, string])[0]);
}

describe('RecentlyUsedMap', () => {
  it('stores, reads, replaces and deletes values', () => {
    const map = mapOf('a', 'b');
    map.set('a', 'A2');
    expect([map.get('a'), map.peek('b'), map.get('c'), map.size]).toEqual(['A2', 'B', undefined, 2]);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    map.clear();
    expect([map.size, map.nextToDrop()]).toEqual([0, undefined]);
  });

  it('drops the first entry not used since it was set, giving the used ones before it a second chance', () => {
    const map = mapOf('a', 'b', 'c', 'd');
    expect(map.nextToDrop()).toEqual(['a', 'A']);
    map.get('a');
    map.get('b');
    expect(map.nextToDrop()).toEqual(['c', 'C']);
    map.delete('c');
    // a and b were passed over (marked unused, moved behind d): d is next, then a.
    expect(map.nextToDrop()).toEqual(['d', 'D']);
    map.delete('d');
    expect(map.nextToDrop()).toEqual(['a', 'A']);
  });

  it('counts a get as a use and never a peek, and a set as new', () => {
    const map = mapOf('a', 'b');
    map.peek('a');
    expect(map.nextToDrop()).toEqual(['a', 'A']);
    map.get('a');
    map.set('a', 'A2');
    // Set again: at the end, unused.
    expect(map.nextToDrop()).toEqual(['b', 'B']);
  });

  it('drops the first entry when every entry was used, after one pass', () => {
    const map = mapOf('a', 'b', 'c');
    for (const key of ['c', 'a', 'b']) map.get(key);
    expect(map.nextToDrop()).toEqual(['a', 'A']);
    expect(map.size).toBe(3);
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

  it('keeps a hot set used less often than the one-off keys arrive, as long as each is used once a pass', () => {
    const capacity = 100;
    const hot = Array.from({ length: 10 }, (_, index) => `hot-${index}`);
    const map = mapOf(...hot);
    for (let index = 0; index < 10_000; index += 1) {
      // Each hot key once every 50 one-off keys: well within one pass of 100 entries.
      if (index % 5 === 0) map.get(hot[(index / 5) % hot.length]);
      map.set(`cold-${index}`, 'x');
      dropPast(map, capacity);
    }
    expect(hot.filter((key) => map.peek(key) === undefined)).toEqual([]);
  });
});
