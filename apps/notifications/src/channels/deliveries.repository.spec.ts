import { runsOf } from './deliveries.repository';

describe('runsOf', () => {
  it('counts a job’s starts, a stalled worker’s restart included, and falls back to its failures plus this run', () => {
    expect(runsOf({ attemptsStarted: 1, attemptsMade: 0 })).toBe(1);
    // Killed mid-send and restarted after the stall window: two starts, no failure recorded.
    expect(runsOf({ attemptsStarted: 2, attemptsMade: 0 })).toBe(2);
    expect(runsOf({ attemptsMade: 2 })).toBe(3);
  });
});
