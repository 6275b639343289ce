import { OldestFirst } from './oldest-first';

describe('OldestFirst', () => {
  it('drops entries in the order they were set, a re-set entry as the newest', () => {
    const map = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const oldest = new OldestFirst(map);
    expect(oldest.drop()).toBe('a');
    map.delete('b');
    map.set('d', 4);
    // Re-set (deleted and set again): the newest. Set in place: where it was.
    map.delete('c');
    map.set('c', 33);
    map.set('d', 44);
    expect(oldest.drop()).toBe('d');
    expect(oldest.drop()).toBe('c');
    expect([oldest.drop(), map.size]).toEqual([undefined, 0]);
  });

  it('goes on with entries set after it had dropped every one, and after a clear', () => {
    const map = new Map([['a', 1]]);
    const oldest = new OldestFirst(map);
    expect(oldest.drop()).toBe('a');
    expect(oldest.drop()).toBeUndefined();
    map.set('b', 2).set('c', 3);
    expect(oldest.drop()).toBe('b');
    map.clear();
    map.set('e', 5);
    expect(oldest.drop()).toBe('e');
  });

  it('always drops what the first entry of the Map is, through any mix of sets, re-sets and deletes', () => {
    const map = new Map<number, number>();
    const oldest = new OldestFirst(map);
    let seed = 3;
    const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    for (let step = 0; step < 20_000; step += 1) {
      const key = random(300);
      const action = random(4);
      if (action === 0) map.delete(key);
      else if (action === 1) {
        const first = map.keys().next().value;
        expect(oldest.drop()).toBe(first);
      }
      else {
        map.delete(key);
        map.set(key, step);
      }
    }
  });
});
