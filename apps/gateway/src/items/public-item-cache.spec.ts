import { PublicItemCache, type PublicItemRecord } from './public-item-cache';

const OWNER = '0190a6f0-0000-7000-8000-000000000001';
const record = (name: string): PublicItemRecord => ({
  item: { code: 'ABCD-EFGH-JKMN-PQRS', name, claimed_at: '2026-11-23T10:00:00.000Z', activated: true, is_owner: false, lost: false },
  ownerUserId: OWNER,
});

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('PublicItemCache', () => {
  it('answers a repeated scan from memory once events are heard', async () => {
    const cache = new PublicItemCache();
    cache.enable();
    const load = jest.fn(async () => record('Keys'));
    await cache.get('A', null, load);
    expect(await cache.get('A', null, load)).toMatchObject({ name: 'Keys', is_owner: false });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('keeps nothing while events are not heard', async () => {
    const cache = new PublicItemCache();
    const load = jest.fn(async () => record('Keys'));
    await cache.get('A', null, load);
    await cache.get('A', null, load);
    expect(load).toHaveBeenCalledTimes(2);
    cache.enable();
    await cache.get('A', null, load);
    cache.disable();
    await cache.get('A', null, load);
    expect(load).toHaveBeenCalledTimes(4);
  });

  it('tells the owner the item is theirs, and nobody else', async () => {
    const cache = new PublicItemCache();
    cache.enable();
    const load = async () => record('Keys');
    expect(await cache.get('A', OWNER, load)).toMatchObject({ is_owner: true, user_id: OWNER });
    const stranger = await cache.get('A', '0190a6f0-0000-7000-8000-000000000002', load);
    expect(stranger.is_owner).toBe(false);
    expect(stranger).not.toHaveProperty('user_id');
    expect(await cache.get('A', null, load)).not.toHaveProperty('user_id');
  });

  it('answers an anonymous scan of a known item with its JSON, made once, and forgets it with the item', async () => {
    let now = 1_000;
    const cache = new PublicItemCache(10, 60_000, () => now);
    cache.enable();
    expect(cache.getKnownAnonymousJson('A')).toBeUndefined();
    await cache.get('A', OWNER, async () => record('Keys'));
    const json = cache.getKnownAnonymousJson('A');
    // What anyone but the owner sees: the owner's own view, read first, is not what is kept.
    expect(JSON.parse(json ?? '')).toEqual(record('Keys').item);
    expect(json).toBe(JSON.stringify(record('Keys').item));
    expect(cache.getKnownAnonymousJson('A')).toBe(json);
    cache.invalidate('A');
    expect(cache.getKnownAnonymousJson('A')).toBeUndefined();
    await cache.get('A', null, async () => record('House keys'));
    expect(JSON.parse(cache.getKnownAnonymousJson('A') ?? '')).toMatchObject({ name: 'House keys' });
    now += 60_001;
    expect(cache.getKnownAnonymousJson('A')).toBeUndefined();
  });

  it('reads again after an event about the item', async () => {
    const cache = new PublicItemCache();
    cache.enable();
    await cache.get('A', null, async () => record('Keys'));
    cache.invalidate('A');
    expect((await cache.get('A', null, async () => record('House keys'))).name).toBe('House keys');
  });

  it('never keeps a read that a change overtook', async () => {
    const cache = new PublicItemCache();
    cache.enable();
    const before = deferred<PublicItemRecord>();
    const overtaken = cache.get('A', null, () => before.promise);
    cache.invalidate('A');
    // A scan after the change does not share the read from before it.
    const after = cache.get('A', null, async () => record('House keys'));
    before.resolve(record('Keys'));
    expect((await overtaken).name).toBe('Keys');
    expect((await after).name).toBe('House keys');
    expect((await cache.get('A', null, async () => record('unexpected'))).name).toBe('House keys');
  });

  it('shares one read among concurrent scans of a code', async () => {
    const cache = new PublicItemCache();
    cache.enable();
    const load = jest.fn(async () => record('Keys'));
    await Promise.all([cache.get('A', null, load), cache.get('A', OWNER, load)]);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('drops the least recently used item past its size, and expired ones', async () => {
    let now = 0;
    const cache = new PublicItemCache(2, 1000, () => now);
    cache.enable();
    const load = jest.fn(async () => record('Keys'));
    await cache.get('A', null, load);
    await cache.get('B', null, load);
    await cache.get('A', null, load);
    await cache.get('C', null, load);
    expect(load).toHaveBeenCalledTimes(3);
    await cache.get('B', null, load);
    expect(load).toHaveBeenCalledTimes(4);
    now = 1000;
    await cache.get('B', null, load);
    expect(load).toHaveBeenCalledTimes(5);
  });

  it('keeps nothing when its size is 0', async () => {
    const cache = new PublicItemCache(0);
    cache.enable();
    const load = jest.fn(async () => record('Keys'));
    await cache.get('A', null, load);
    await cache.get('A', null, load);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
