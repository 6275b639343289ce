import { LocalRateLimit } from './local-rate-limit';

const address = (index: number) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

describe('LocalRateLimit', () => {
  it('lets each address make the limit’s requests per window, then says how many seconds are left', () => {
    const limit = new LocalRateLimit(3, 60_000);
    const start = 1_000_000;
    for (let index = 0; index < 3; index += 1) expect(limit.take('198.51.100.1', start + index)).toBe(0);
    expect(limit.take('198.51.100.1', start + 15_000)).toBe(45);
    expect(limit.take('198.51.100.2', start + 15_000)).toBe(0);
    // A new window forgets every count.
    expect(limit.take('198.51.100.1', start + 60_000)).toBe(0);
  });

  it('counts every address of a flood, the last as the first, and never lets one past the limit', () => {
    const limit = new LocalRateLimit(300, 60_000);
    let refused = 0;
    for (let index = 0; index < 300_000; index += 1) if (limit.take(address(index), 0) > 0) refused += 1;
    expect(refused).toBe(0);
    for (const flooded of [address(0), address(299_999)]) {
      let allowed = 1;
      for (let request = 0; request < 400; request += 1) if (limit.take(flooded, 0) === 0) allowed += 1;
      // The flood's other addresses share its cells (about 2.3 each here), so slightly under 300; never over.
      expect(allowed).toBeLessThanOrEqual(300);
      expect(allowed).toBeGreaterThan(290);
    }
  });

  it('refuses hardly any address wrongly while a thousand others are at the limit', () => {
    const limit = new LocalRateLimit(300, 60_000);
    for (let heavy = 0; heavy < 1000; heavy += 1) {
      for (let request = 0; request < 300; request += 1) limit.take(`2001:db8::${heavy.toString(16)}`, 0);
      expect(limit.take(`2001:db8::${heavy.toString(16)}`, 0)).toBe(60);
    }
    let refused = 0;
    for (let index = 0; index < 100_000; index += 1) if (limit.take(address(index), 0) > 0) refused += 1;
    // About 6 expected ((1000 / 2^17)^2 of 100,000); the bound leaves room for chance.
    expect(refused).toBeLessThan(60);
  });

  it('refuses a limit its 16-bit counters cannot hold', () => {
    expect(() => new LocalRateLimit(65_536, 60_000)).toThrow('up to 65535');
    expect(() => new LocalRateLimit(65_535, 60_000)).not.toThrow();
  });
});
