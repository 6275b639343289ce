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

/** Whole seconds to tell a refused client to wait (at least 1). */
export function retryAfterSeconds(remainingMs: number): number {
  return Math.max(1, Math.ceil(remainingMs / 1000));
}
