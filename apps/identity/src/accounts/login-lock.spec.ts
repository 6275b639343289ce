import { lockDurationMs, MAX_LOCK_MS } from './login-lock';

describe('lockDurationMs', () => {
  it('does not lock before 10 failures in a row', () => {
    for (let failures = 0; failures < 10; failures += 1) expect(lockDurationMs(failures)).toBe(0);
  });

  it('locks for a minute at the 10th failure and doubles with each further one', () => {
    expect(lockDurationMs(10)).toBe(60_000);
    expect(lockDurationMs(11)).toBe(120_000);
    expect(lockDurationMs(12)).toBe(240_000);
  });

  it('never locks for more than an hour', () => {
    expect(lockDurationMs(16)).toBe(MAX_LOCK_MS);
    expect(lockDurationMs(200)).toBe(MAX_LOCK_MS);
    expect(lockDurationMs(1e6)).toBe(MAX_LOCK_MS);
  });
});
