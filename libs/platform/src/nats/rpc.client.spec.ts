import { callBudgetMs } from './rpc.client';

describe('callBudgetMs', () => {
  it('is the call’s own timeout outside the handling of a request', () => {
    expect(callBudgetMs(2000, undefined, 1000)).toBe(2000);
  });

  it('is what is left of the request’s deadline when that is less than the timeout', () => {
    expect(callBudgetMs(2000, 1300, 1000)).toBe(300);
    expect(callBudgetMs(200, 5000, 1000)).toBe(200);
  });

  it('is zero or less once the deadline has passed, so the caller fails without asking', () => {
    expect(callBudgetMs(2000, 900, 1000)).toBeLessThanOrEqual(0);
  });
});
