import { LocalRateLimit } from './local-rate-limit';

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

  it('stays within its size under a flood of addresses, still counting those it holds', () => {
    const limit = new LocalRateLimit(1, 60_000, 2);
    expect(limit.take('a', 0)).toBe(0);
    expect(limit.take('b', 0)).toBe(0);
    expect(limit.take('c', 0)).toBe(0);
    expect(limit.take('c', 0)).toBe(0);
    expect(limit.take('a', 0)).toBe(60);
  });
});
