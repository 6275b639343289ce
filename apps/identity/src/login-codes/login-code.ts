import { createHash, createHmac, randomBytes } from 'node:crypto';

// Crockford base32: no I, L, O, U, so a code read aloud or retyped survives.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const LOGIN_CODE_LENGTH = 8;
// ARCHITECTURE §6: a login code works for 10 minutes, once.
export const LOGIN_CODE_TTL_MS = 10 * 60_000;
// Wrong tries a code survives; the 5th burns it.
export const LOGIN_CODE_MAX_ATTEMPTS = 5;
/**
 * The first characters of a code, stored in clear beside the hash of the whole code. A wrong code cannot name its
 * user (codes are looked up by hash), but its locator names the live codes it may have been meant as: a wrong try
 * counts against those. 2 characters (10 bits) leave 30 secret bits, so 5 tries find a given code with a chance
 * of 5 in 2^30, while the 1,024 locators make it rare that a typo of one user costs another user a try.
 */
export const LOCATOR_LENGTH = 2;

/** A new code: 8 uniformly random Crockford characters (40 bits). */
export function generateLoginCode(): string {
  // 256 is a multiple of 32: the low 5 bits of a random byte are uniform.
  return [...randomBytes(LOGIN_CODE_LENGTH)].map((byte) => ALPHABET[byte & 31]).join('');
}

/**
 * A code as typed, in its canonical form: upper case, without spaces or dashes, with Crockford's look-alikes read
 * as digits (O → 0, I and L → 1). Null when it cannot be a code.
 */
export function normaliseLoginCode(input: string): string | null {
  const code = input
    .toUpperCase()
    .replace(/[\s-]/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  if (code.length !== LOGIN_CODE_LENGTH) return null;
  return [...code].every((character) => ALPHABET.includes(character)) ? code : null;
}

export function locatorOf(code: string): string {
  return code.slice(0, LOCATOR_LENGTH);
}

/**
 * How a login code is stored: HMAC-SHA-256 under the server's LOGIN_CODE_KEY, hex. A code has 40 bits, few enough
 * that a plain hash in a copied table could be reversed by trying them all; without the key nobody can. Codes
 * stored under another key (before the key was introduced or rotated) no longer match: they last 10 minutes.
 */
export function loginCodeHash(code: string, key: string): string {
  return createHmac('sha256', key).update(code, 'utf8').digest('hex');
}

/** How password tokens are stored: a SHA-256 hex digest (they are random, 256-bit and short-lived). */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
