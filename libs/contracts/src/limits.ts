// Limits that browser pages check before they send, in a module without schemas: a page that imports one of them
// (the finder page's form, its hand-over code, a reward) does not load zod and every schema with it. The schemas that
// enforce them on the server import them from here.

/** The product spec's limit on a message. */
export const MESSAGE_MAX_LENGTH = 2000;

/** The owner's hand-over code: 6 digits, a new one every UTC day; yesterday's still closes a case until its end + 1 day. */
export const HANDOVER_CODE_DIGITS = 6;

/** Rewards are integer cents (EUR), at most 100 000 EUR: the bound keeps a typo from becoming a promise no one meant. */
export const REWARD_MAX_CENTS = 10_000_000;
