// ARCHITECTURE §6 (RELIABILITY A3): e-mails sent on request to one address, at most 1 a minute, 5 an hour and
// 10 a day, login codes and reset links each on their own. Beyond them a request is dropped silently here; the
// gateway's budgets (the same figures, in Redis) refuse it first with 429 and Retry-After.
export const MAIL_LIMITS: ReadonlyArray<{ windowMs: number; max: number }> = [
  { windowMs: 60_000, max: 1 },
  { windowMs: 60 * 60_000, max: 5 },
  { windowMs: 24 * 60 * 60_000, max: 10 },
];
export const LONGEST_MAIL_WINDOW_MS = Math.max(...MAIL_LIMITS.map((limit) => limit.windowMs));

/** True if one more e-mail may go to an address that was sent e-mails at `sentAt`. */
export function mayMail(sentAt: readonly Date[], now: Date): boolean {
  return MAIL_LIMITS.every(({ windowMs, max }) => sentAt.filter((at) => now.getTime() - at.getTime() < windowMs).length < max);
}
