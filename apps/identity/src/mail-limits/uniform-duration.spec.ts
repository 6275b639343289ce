import { untilElapsed, withMinimumDuration } from './uniform-duration';

describe('withMinimumDuration', () => {
  it('answers no sooner than the minimum when the work is quick', async () => {
    const started = performance.now();
    await expect(withMinimumDuration(40, () => Promise.resolve('done'))).resolves.toBe('done');
    expect(performance.now() - started).toBeGreaterThanOrEqual(39);
  });

  it('adds nothing when the work takes longer than the minimum', async () => {
    const started = performance.now();
    await withMinimumDuration(5, () => new Promise((resolve) => setTimeout(resolve, 30)));
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('holds back failures too', async () => {
    const started = performance.now();
    await expect(withMinimumDuration(40, () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(performance.now() - started).toBeGreaterThanOrEqual(39);
  });
});

describe('untilElapsed', () => {
  it('waits out what is left of the minimum since the start, and nothing once it has passed', async () => {
    const started = performance.now();
    await untilElapsed(started, 40);
    expect(performance.now() - started).toBeGreaterThanOrEqual(39);
    const waited = performance.now();
    await untilElapsed(started, 10);
    expect(performance.now() - waited).toBeLessThan(10);
  });
});
