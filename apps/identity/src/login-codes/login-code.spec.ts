import { createHash } from 'node:crypto';
import { generateLoginCode, locatorOf, loginCodeHash, normaliseLoginCode, secretHash } from './login-code';

describe('login codes', () => {
  it('are 8 Crockford base32 characters', () => {
    for (let i = 0; i < 200; i += 1) expect(generateLoginCode()).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/);
  });

  it('differ from one another', () => {
    const codes = new Set(Array.from({ length: 1000 }, generateLoginCode));
    expect(codes.size).toBe(1000);
  });

  it('forgive case, spaces and dashes', () => {
    expect(normaliseLoginCode(' abcd-efgh ')).toBe('ABCDEFGH');
    expect(normaliseLoginCode('ab cd ef gh')).toBe('ABCDEFGH');
  });

  it("read Crockford's look-alikes as the digits they resemble", () => {
    expect(normaliseLoginCode('oOiIlL23')).toBe('00111123');
  });

  it('refuse what cannot be a code', () => {
    expect(normaliseLoginCode('ABCDEFG')).toBeNull();
    expect(normaliseLoginCode('ABCDEFGHJ')).toBeNull();
    expect(normaliseLoginCode('ABCDEFGU')).toBeNull();
    expect(normaliseLoginCode('ABCD_FGH')).toBeNull();
  });

  it('keep a short locator in clear and the whole code only as a hash', () => {
    expect(locatorOf('ABCDEFGH')).toBe('AB');
    expect(secretHash('ABCDEFGH')).toMatch(/^[0-9a-f]{64}$/);
    expect(secretHash('ABCDEFGH')).not.toContain('ABCDEFGH');
  });

  it('are stored as an HMAC under the server key, not as their plain SHA-256', () => {
    const key = 'k'.repeat(32);
    expect(loginCodeHash('ABCDEFGH', key)).toMatch(/^[0-9a-f]{64}$/);
    expect(loginCodeHash('ABCDEFGH', key)).toBe(loginCodeHash('ABCDEFGH', key));
    expect(loginCodeHash('ABCDEFGH', key)).not.toBe(createHash('sha256').update('ABCDEFGH').digest('hex'));
    // Another key (a rotation) makes the same code another hash: codes in flight then stop working.
    expect(loginCodeHash('ABCDEFGH', key)).not.toBe(loginCodeHash('ABCDEFGH', 'j'.repeat(32)));
  });
});
