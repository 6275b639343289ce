import type Redis from 'ioredis';

/** A count in a fixed window, and how long the window has left. */
export interface WindowCount {
  count: number;
  remainingMs: number;
}

/**
 * Counts one event against each key in Redis, in one round trip: the first event of a window starts it (the key
 * expires with it), so every gateway replica counts together. Throws if Redis cannot answer.
 */
export async function countInWindow(redis: Redis, keys: string[], windowMs: number): Promise<WindowCount[]> {
  const transaction = redis.multi();
  for (const key of keys) transaction.set(key, 0, 'PX', windowMs, 'NX').incr(key).pttl(key);
  const replies = await transaction.exec();
  if (!replies) throw new Error('Redis transaction discarded');
  return keys.map((_, index) => ({ count: Number(replies[index * 3 + 1]?.[1]), remainingMs: Number(replies[index * 3 + 2]?.[1]) }));
}

// Decrements a window's count only while the window (the key) exists, never below zero.
const REFUND_SCRIPT = "if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('GET', KEYS[1])) > 0 then return redis.call('DECR', KEYS[1]) end return 0";

/**
 * Gives back one count of each key's window (countInWindow's), for a write that then failed on the product's side: a
 * writer retrying through an outage must not use up their window. DECR leaves a key's expiry alone, and a window that
 * ended meanwhile has nothing left to give back.
 */
export async function refundInWindow(redis: Redis, keys: string[]): Promise<void> {
  const transaction = redis.multi();
  for (const key of keys) transaction.eval(REFUND_SCRIPT, 1, key);
  await transaction.exec();
}

/** Whole seconds to tell a refused client to wait (at least 1). */
export function retryAfterSeconds(remainingMs: number): number {
  return Math.max(1, Math.ceil(remainingMs / 1000));
}
