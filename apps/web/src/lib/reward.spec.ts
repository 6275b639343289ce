import { describe, expect, it } from 'vitest';

import { formatReward, parseReward, rewardInputValue } from './reward';

describe('reward input', () => {
  it.each([
    ['', 0],
    ['  ', 0],
    ['10', 1000],
    ['12,5', 1250],
    ['12.5', 1250],
    ['12,05', 1205],
    ['0,99', 99],
    ['€ 7,50', 750],
    ['100000', 10_000_000],
  ])('reads %j as %i cents', (input, cents) => {
    expect(parseReward(input)).toBe(cents);
  });

  it.each(['abc', '-5', '1,234', '1.2.3', '12,', ',5', '100000,01', '1e3'])('refuses %j', (input) => {
    expect(parseReward(input)).toBeNull();
  });

  it('shows amounts with the euro sign in the reader’s language', () => {
    expect(formatReward(1250, 'en')).toBe('€12.50');
    expect(formatReward(1250, 'nl')).toMatch(/^€\s?12,50$/);
  });

  it('puts an amount back into the field with the reader’s decimal separator', () => {
    expect(rewardInputValue(1250, 'nl')).toBe('12,50');
    expect(rewardInputValue(1250, 'en')).toBe('12.50');
    expect(rewardInputValue(0, 'en')).toBe('');
    expect(parseReward(rewardInputValue(123456, 'es'))).toBe(123456);
  });
});
