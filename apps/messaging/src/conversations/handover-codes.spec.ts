import { randomBytes } from 'node:crypto';
import { currentHandoverCode, handoverCodeOf, isHandoverCode } from './handover-codes';

describe('hand-over codes', () => {
  const secret = randomBytes(32);
  const noon = new Date('2026-11-26T12:00:00Z');

  it('is 6 digits, the same all day, another the next day and for another item', () => {
    const today = currentHandoverCode(secret, noon);
    expect(today.code).toMatch(/^\d{6}$/);
    expect(currentHandoverCode(secret, new Date('2026-11-26T23:59:59Z')).code).toBe(today.code);
    expect(today.validUntil.toISOString()).toBe('2026-11-27T00:00:00.000Z');
    const days = new Set(Array.from({ length: 30 }, (_, day) => handoverCodeOf(secret, `2026-11-${String(day + 1).padStart(2, '0')}`)));
    expect(days.size).toBeGreaterThan(25);
    expect(handoverCodeOf(randomBytes(32), '2026-11-26')).not.toBe(today.code);
  });

  it('takes today’s and yesterday’s code, typed with spaces or a dash, and nothing else', () => {
    const today = currentHandoverCode(secret, noon).code;
    const yesterday = handoverCodeOf(secret, '2026-11-25');
    expect(isHandoverCode(secret, today, noon)).toBe(true);
    expect(isHandoverCode(secret, `${today.slice(0, 3)} ${today.slice(3)}`, noon)).toBe(true);
    expect(isHandoverCode(secret, `${today.slice(0, 3)}-${today.slice(3)}`, noon)).toBe(true);
    expect(isHandoverCode(secret, yesterday, noon)).toBe(true);
    expect(isHandoverCode(secret, handoverCodeOf(secret, '2026-11-24'), noon)).toBe(false);
    const wrong = String((Number(today) + 1) % 1_000_000).padStart(6, '0');
    expect(isHandoverCode(secret, wrong, noon)).toBe(yesterday === wrong);
    for (const typed of ['', '12345', '1234567', 'abcdef', `${today}0`]) expect(isHandoverCode(secret, typed, noon)).toBe(false);
  });
});
