import { expectEventually } from '@homing/testing';
import type { FaultStack } from './fault-stack';

/** The value at percentile `p` (0–100) of `values`, nearest rank; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((sorted.length * p) / 100) - 1))];
}

/**
 * How near a SIGKILL an SMTP server's acceptance can come without the sender living to record it: before the kill,
 * the reply travels back, nodemailer resolves and the delivery row's UPDATE commits (milliseconds; far more on a
 * loaded machine); just after it, a server still accepts a message whose final dot arrived before its sender died.
 * No sender can close that window: SMTP has no two-phase commit. A mail accepted in it is sent again with the same
 * Message-ID (`<jobId@homing>`), which mailbox providers recognise.
 */
export const ACCEPTED_NEAR_KILL_MS = 1000;

/**
 * Waits until every owner has at least `each` e-mails in the stack's SMTP sink (or `timeoutMs` passes), then a few
 * seconds more so late duplicates (a job retried after a stall) arrive before they are counted.
 *
 * A copy counts as `duplicated` unless it repeats the Message-ID of a mail the sink accepted within
 * `ACCEPTED_NEAR_KILL_MS` of one of `kills` (ms since the epoch): those are `resentAfterKill`, reported apart.
 * Two jobs for one e-mail (different Message-IDs), or a job sent again after its delivery was recorded, are always
 * duplicates.
 */
export async function mailCounts(
  stack: FaultStack,
  owners: Array<{ email: string }>,
  each: number,
  timeoutMs = 180_000,
  kills: number[] = [],
): Promise<{ lost: number; duplicated: number; resentAfterKill: number }> {
  const received = () => owners.map(({ email }) => stack.mail.mailsTo(email));
  await expectEventually(() => expect(received().every((mails) => mails.length >= each)).toBe(true), { timeoutMs, intervalMs: 500 }).catch(() => undefined);
  await new Promise((resolveWait) => setTimeout(resolveWait, 3000));
  let lost = 0;
  let duplicated = 0;
  let resentAfterKill = 0;
  for (const mails of received()) {
    const firstOf = new Map<string, number>();
    for (const { messageId, receivedAt } of mails) {
      const first = firstOf.get(messageId);
      if (first === undefined) {
        firstOf.set(messageId, receivedAt);
      } else if (kills.some((killedAt) => Math.abs(killedAt - first) <= ACCEPTED_NEAR_KILL_MS)) {
        resentAfterKill += 1;
      } else {
        duplicated += 1;
      }
    }
    lost += Math.max(0, each - firstOf.size);
    // More distinct e-mails than expected (two jobs for one event) are duplicates too.
    duplicated += Math.max(0, firstOf.size - each);
  }
  return { lost, duplicated, resentAfterKill };
}
