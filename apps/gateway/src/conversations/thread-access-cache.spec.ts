import type { ThreadAccess } from '@homing/contracts';
import { ThreadAccessCache } from './thread-access-cache';

const OWNER = { viewerUserId: '0190a000-0000-7000-8000-000000000001', finderToken: undefined };
const FINDER = { viewerUserId: null, finderToken: 'aaaaaaaaaaaaaaaaaaaaaa' };
const ownerAccess: ThreadAccess = { itemCode: 'ITEM', conversationId: null, latestMessageId: 3 };
const finderAccess: ThreadAccess = { itemCode: 'ITEM', conversationId: '0190a000-0000-7000-8000-00000000000a', latestMessageId: 3 };

describe('ThreadAccessCache', () => {
  it('keeps each caller’s access to an item apart, for a while', () => {
    let now = 0;
    const cache = new ThreadAccessCache(() => now, 1000);
    cache.set(OWNER, ownerAccess);
    cache.set(FINDER, finderAccess);
    expect(cache.get('ITEM', OWNER)).toBe(ownerAccess);
    expect(cache.get('ITEM', FINDER)).toBe(finderAccess);
    expect(cache.get('ITEM', { viewerUserId: null, finderToken: 'bbbbbbbbbbbbbbbbbbbbbb' })).toBeUndefined();
    expect(cache.get('OTHER', OWNER)).toBeUndefined();
    now = 1000;
    expect(cache.get('ITEM', OWNER)).toBeUndefined();
  });

  it('forgets an item’s callers when its thread is reset or it is deleted, and everyone after a reconnect', () => {
    const cache = new ThreadAccessCache();
    cache.set(OWNER, ownerAccess);
    cache.set(OWNER, { ...ownerAccess, itemCode: 'OTHER' });
    cache.forgetItem('ITEM');
    expect(cache.get('ITEM', OWNER)).toBeUndefined();
    expect(cache.get('OTHER', OWNER)).toBeDefined();
    cache.forgetAll();
    expect(cache.get('OTHER', OWNER)).toBeUndefined();
  });

  it('holds at most its size, dropping the oldest entry', () => {
    const cache = new ThreadAccessCache(Date.now, 60_000, 1);
    cache.set(OWNER, ownerAccess);
    cache.set(FINDER, finderAccess);
    expect(cache.get('ITEM', OWNER)).toBeUndefined();
    expect(cache.get('ITEM', FINDER)).toBe(finderAccess);
  });
});
