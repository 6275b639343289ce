import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { trackActivity } from './activity-tracker';

describe('the activity tracker', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports inactivity once the bucket of 10 has drained at one a second, and activity on the next movement', () => {
    const target = new EventTarget();
    const onActive = vi.fn();
    const onInactive = vi.fn();
    const stop = trackActivity({ target, onActive, onInactive });

    vi.advanceTimersByTime(9000);
    expect(onInactive).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(onInactive).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5000);
    expect(onInactive).toHaveBeenCalledTimes(1);

    target.dispatchEvent(new Event('touchmove'));
    expect(onActive).toHaveBeenCalledTimes(1);
    stop();
  });

  it('stays active while the mouse keeps moving, and says nothing about movement while active', () => {
    const target = new EventTarget();
    const onActive = vi.fn();
    const onInactive = vi.fn();
    const stop = trackActivity({ target, onActive, onInactive });
    for (let second = 0; second < 30; second++) {
      vi.advanceTimersByTime(1000);
      target.dispatchEvent(new Event('mousemove'));
    }
    expect(onInactive).not.toHaveBeenCalled();
    expect(onActive).not.toHaveBeenCalled();
    stop();
  });
});
