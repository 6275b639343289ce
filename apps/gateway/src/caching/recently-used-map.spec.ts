import { RecentlyUsedMap } from './recently-used-map';

function mapOf(...keys: string[]): RecentlyUsedMap<string, string> {
  const map = new RecentlyUsedMap<string, string>();
  for (const key of keys) map.set(key, key.toUpperCase());
  return map;
}

describe('RecentlyUsedMap', () => {
  it('stores, reads, replaces and deletes values', () => {
    const map = mapOf('a', 'b');
    map.set('a', 'A2');
    expect([map.get('a'), map.peek('b'), map.get('c'), map.size]).toEqual(['A2', 'B', undefined, 2]);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    map.clear();
    expect([map.size, map.oldest()]).toEqual([0, undefined]);
  });

  it('puts an entry used from the older half of the order at its end', () => {
    const map = mapOf('a', 'b', 'c', 'd');
    expect(map.oldest()).toEqual(['a', 'A']);
    map.get('a');
    expect(map.oldest()).toEqual(['b', 'B']);
    map.get('b');
    expect(map.oldest()).toEqual(['c', 'C']);
  });

  it('leaves an entry of the newer half where it is, and peek never moves one', () => {
    const map = mapOf('a', 'b', 'c', 'd');
    map.get('d');
    map.get('c');
    map.peek('a');
    expect(map.oldest()).toEqual(['a', 'A']);
  });

  it('is the exact order of use when it holds two', () => {
    const map = mapOf('a', 'b');
    map.get('a');
    expect(map.oldest()).toEqual(['b', 'B']);
    map.get('b');
    expect(map.oldest()).toEqual(['a', 'A']);
  });

  it('keeps a hot set through a stream of one-off keys when its first entry is dropped past a size', () => {
    const capacity = 100;
    const hot = Array.from({ length: 20 }, (_, index) => `hot-${index}`);
    const map = mapOf(...hot);
    for (let index = 0; index < 10_000; index += 1) {
      map.get(hot[index % hot.length]);
      map.set(`cold-${index}`, 'x');
      if (map.size > capacity) map.delete((map.oldest() as [string, string])[0]);
    }
    expect(hot.filter((key) => map.peek(key) === undefined)).toEqual([]);
    expect(map.size).toBe(capacity);
  });
});
