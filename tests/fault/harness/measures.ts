import { expectEventually } from '@homing/testing';
import type { FaultStack } from './fault-stack';

/** The value at percentile `p` (0–100) of `values`, nearest rank; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((sorted.length * p) / 100) - 1))];
}

/**
 * Waits until every owner has at least `each` e-mails in the stack's SMTP sink (or `timeoutMs` passes), then a few
 * seconds more so late duplicates (a job retried after a stall) arrive before they are counted.
 */
export async function mailCounts(stack: FaultStack, owners: Array<{ email: string }>, each: number, timeoutMs = 180_000): Promise<{ lost: number; duplicated: number }> {
  const received = () => owners.map(({ email }) => stack.mail.mailsTo(email).length);
  await expectEventually(() => expect(received().every((count) => count >= each)).toBe(true), { timeoutMs, intervalMs: 500 }).catch(() => undefined);
  await new Promise((resolveWait) => setTimeout(resolveWait, 3000));
  const counts = received();
  return {
    lost: counts.reduce((sum, count) => sum + Math.max(0, each - count), 0),
    duplicated: counts.reduce((sum, count) => sum + Math.max(0, count - each), 0),
  };
}
