import { setTimeout as sleep } from 'node:timers/promises';

// Requests that e-mail a known address do a transaction's worth of work (a few ms) that an unknown address does
// not; answering no sooner than this hides the difference (RELIABILITY S2: median difference < 5 ms).
export const E_MAIL_REQUEST_MIN_DURATION_MS = 50;

// A failed login of a known address writes its failure count (a transaction, several ms) that an unknown address
// does not; both verify a hash first. Failed logins answer no sooner than this (RELIABILITY S2).
export const LOGIN_FAILURE_MIN_DURATION_MS = 100;

/** Runs the work and answers no sooner than `minimumMs` after the start, whether it succeeded or failed. */
export async function withMinimumDuration<T>(minimumMs: number, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    await untilElapsed(started, minimumMs);
  }
}

/** Waits until `minimumMs` have passed since `started` (a `performance.now()` reading). */
export async function untilElapsed(started: number, minimumMs: number): Promise<void> {
  // A timer may fire up to a millisecond early by performance.now() (libuv's clock is coarser): wait again until the
  // whole minimum has passed, or an answer could come measurably sooner than the others.
  for (let left = minimumMs - (performance.now() - started); left > 0; left = minimumMs - (performance.now() - started)) await sleep(Math.max(1, Math.ceil(left)));
}
