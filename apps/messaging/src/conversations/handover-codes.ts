import { createHmac, timingSafeEqual } from 'node:crypto';
import { HANDOVER_CODE_DIGITS } from '@homing/contracts';

const DAY_MS = 24 * 60 * 60_000;

/** The UTC day (`YYYY-MM-DD`) a time falls in. */
function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** An item's hand-over code for a UTC day: 6 digits from an HMAC of the day under the item's own random key. */
export function handoverCodeOf(secret: Buffer, day: string): string {
  const digest = createHmac('sha256', secret).update(`handover:${day}`).digest();
  return String(digest.readUInt32BE(0) % 10 ** HANDOVER_CODE_DIGITS).padStart(HANDOVER_CODE_DIGITS, '0');
}

/** Today's code and when it stops being shown (the end of the UTC day). */
export function currentHandoverCode(secret: Buffer, now: Date): { code: string; validUntil: Date } {
  const day = dayOf(now);
  return { code: handoverCodeOf(secret, day), validUntil: new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS) };
}

/**
 * Whether a code the finder typed is the item's code of today or of yesterday (an owner who showed it before midnight
 * meets the finder after), compared in constant time. Spaces and dashes a person may type are ignored.
 */
export function isHandoverCode(secret: Buffer, typed: string, now: Date): boolean {
  const digits = typed.replace(/[\s-]/g, '');
  if (!new RegExp(`^\\d{${HANDOVER_CODE_DIGITS}}$`).test(digits)) return false;
  const candidates = [dayOf(now), dayOf(new Date(now.getTime() - DAY_MS))].map((day) => handoverCodeOf(secret, day));
  // Both compared every time: the answer takes as long whichever matched.
  return candidates.map((code) => timingSafeEqual(Buffer.from(code), Buffer.from(digits))).some(Boolean);
}
