import { REWARD_MAX_CENTS } from '@homing/contracts';

// Product spec §5: a comma is a decimal separator too; "12,5" is 12 euros and 50 cents; empty means no reward.
const REWARD_INPUT = /^(\d{1,9})(?:[.,](\d{1,2}))?$/;

/** Euros as typed → integer cents, or null when the text is not an amount we accept. */
export function parseReward(input: string): number | null {
  const text = input.trim().replace(/^€\s*/, '');
  if (text === '') return 0;
  const match = REWARD_INPUT.exec(text);
  if (!match) return null;
  const [, whole, fraction = ''] = match;
  // A one-digit fraction is tens of cents.
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return cents <= REWARD_MAX_CENTS ? cents : null;
}

/** Cents → the amount in the reader's language, with the euro sign. */
export function formatReward(cents: number, language: string): string {
  return new Intl.NumberFormat(language, { style: 'currency', currency: 'EUR' }).format(cents / 100);
}

/** Cents → what the reward field shows when editing ("12,50" in Dutch and Spanish). */
export function rewardInputValue(cents: number | undefined, language: string): string {
  if (!cents) return '';
  return new Intl.NumberFormat(language, { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: false }).format(cents / 100);
}
