import type IORedis from 'ioredis';
import { isolatedRedis, type IsolatedRedis } from '@homing/testing';
import { countInWindow, refundInWindow } from '../src/redis/window-counter';

describe('countInWindow and refundInWindow (real Redis)', () => {
  let isolated: IsolatedRedis;
  let redis: IORedis;
  const key = (name: string) => isolated.key(name);

  beforeAll(() => {
    isolated = isolatedRedis();
    redis = isolated.redis;
  });

  afterAll(() => isolated.close());

  it('counts each key in its own window, which the first count starts and which ends with the key', async () => {
    const [address, tag] = [key('address-a'), key('tag-a')];
    const first = await countInWindow(redis, [address, tag], 60_000);
    expect(first.map(({ count }) => count)).toEqual([1, 1]);
    for (const { remainingMs } of first) {
      expect(remainingMs).toBeGreaterThan(59_000);
      expect(remainingMs).toBeLessThanOrEqual(60_000);
    }

    const second = await countInWindow(redis, [key('address-b'), tag], 60_000);
    expect(second.map(({ count }) => count)).toEqual([1, 2]);
    // A later count does not move the window's end: the key keeps the expiry its first count gave it.
    expect(await redis.pttl(tag)).toBeLessThanOrEqual(first[1].remainingMs);
    expect(Number(await redis.get(tag))).toBe(2);
  });

  it('gives each key the window named for it, when each has its own', async () => {
    const [route, address, tag] = [key('route-w'), key('address-w'), key('tag-w')];
    const counts = await countInWindow(redis, [route, address, tag], [60_000, 3_600_000, 3_600_000]);
    expect(counts.map(({ count }) => count)).toEqual([1, 1, 1]);
    expect(counts[0].remainingMs).toBeLessThanOrEqual(60_000);
    expect(counts[1].remainingMs).toBeGreaterThan(3_500_000);
    expect(await redis.pttl(tag)).toBeGreaterThan(3_500_000);
    await expect(countInWindow(redis, [route, address], [60_000])).rejects.toThrow(RangeError);
  });

  it('counts every concurrent event once', async () => {
    const tag = key('tag-concurrent');
    const answers = await Promise.all(Array.from({ length: 50 }, () => countInWindow(redis, [tag], 60_000)));
    expect(answers.map(([{ count }]) => count).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
  });

  it('starts a new window once the last one has ended', async () => {
    const tag = key('tag-short');
    await countInWindow(redis, [tag], 50);
    await countInWindow(redis, [tag], 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const [{ count, remainingMs }] = await countInWindow(redis, [tag], 50);
    expect(count).toBe(1);
    expect(remainingMs).toBeGreaterThan(0);
  });

  it('refunds a count while its window lasts, never below zero', async () => {
    const tag = key('tag-refund');
    await countInWindow(redis, [tag], 60_000);
    await refundInWindow(redis, [tag]);
    await refundInWindow(redis, [tag]);
    expect(Number(await redis.get(tag))).toBe(0);
    const [{ count }] = await countInWindow(redis, [tag], 60_000);
    expect(count).toBe(1);
  });

  it('fails, rather than counting nothing, when a key holds something that is not a count', async () => {
    const list = key('not-a-count');
    await redis.rpush(list, 'x');
    await expect(countInWindow(redis, [list], 60_000)).rejects.toThrow(/WRONGTYPE|not an integer/);
  });
});
