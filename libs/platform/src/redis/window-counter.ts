import type Redis from 'ioredis';

/** A count in a fixed window, and how long the window has left. */
export interface WindowCount {
  count: number;
  remainingMs: number;
}

// Per key: the window's first count starts it (the key expires with the window), then the count and the time left.
// One script for every key: atomic as a MULTI of the same commands was, and one command for ioredis and Redis to handle
// instead of a MULTI, three commands a key and an EXEC (a finder's message counts two keys: eight commands became one).
// Each key's window is its own ARGV, or the one ARGV when all share it.
// Sent whole, as the project's other scripts are: by its digest (EVALSHA) it measured no cheaper (docs/benchmarks.md).
const COUNT_SCRIPT = `local answers = {}
for index, key in ipairs(KEYS) do
  redis.call('SET', key, 0, 'PX', ARGV[index] or ARGV[1], 'NX')
  answers[2 * index - 1] = redis.call('INCR', key)
  answers[2 * index] = redis.call('PTTL', key)
end
return answers`;

/**
 * Counts one event against each key in Redis, in one round trip: the first event of a window starts it (the key
 * expires with it), so every replica (gateway or mail relay) counts together. `windowMs` is every key's window, or
 * each key's in turn. Throws if Redis cannot answer.
 */
export async function countInWindow(redis: Redis, keys: string[], windowMs: number | readonly number[]): Promise<WindowCount[]> {
  if (typeof windowMs !== 'number' && windowMs.length !== keys.length) throw new RangeError(`${keys.length} keys, ${windowMs.length} windows`);
  const replies = (await redis.eval(COUNT_SCRIPT, keys.length, ...keys, ...(typeof windowMs === 'number' ? [windowMs] : windowMs))) as unknown[];
  return keys.map((_, index) => ({ count: Number(replies[index * 2]), remainingMs: Number(replies[index * 2 + 1]) }));
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
