import { mayMail } from './mail-limits';

const now = new Date('2026-11-23T12:00:00Z');
const minutesAgo = (...minutes: number[]) => minutes.map((m) => new Date(now.getTime() - m * 60_000));

describe('mayMail', () => {
  it('allows the first e-mail', () => {
    expect(mayMail([], now)).toBe(true);
  });

  it('allows at most one e-mail a minute', () => {
    expect(mayMail(minutesAgo(0.5), now)).toBe(false);
    expect(mayMail(minutesAgo(1), now)).toBe(true);
  });

  it('allows at most five an hour', () => {
    expect(mayMail(minutesAgo(2, 10, 20, 30, 40), now)).toBe(false);
    expect(mayMail(minutesAgo(2, 10, 20, 30, 60), now)).toBe(true);
  });

  it('allows at most ten a day', () => {
    const tenToday = minutesAgo(61, 120, 180, 240, 300, 360, 420, 480, 540, 600);
    expect(mayMail(tenToday, now)).toBe(false);
    expect(mayMail(minutesAgo(61, 120, 180, 240, 300, 360, 420, 480, 540, 24 * 60), now)).toBe(true);
  });
});
