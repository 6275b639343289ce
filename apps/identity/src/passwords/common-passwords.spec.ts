import { COMMON_PASSWORDS, isCommonPassword } from './common-passwords';

describe('common passwords', () => {
  it('refuses the most common passwords whatever their case', () => {
    expect(isCommonPassword('password1')).toBe(true);
    expect(isCommonPassword('Password123')).toBe(true);
    expect(isCommonPassword('QWERTYUIOP')).toBe(true);
    expect(isCommonPassword('12345678')).toBe(true);
  });

  it('accepts a password that is not on the list', () => {
    expect(isCommonPassword('correct horse battery staple')).toBe(false);
  });

  it('holds a few hundred entries, all long enough to pass the length rule', () => {
    expect(COMMON_PASSWORDS.size).toBeGreaterThan(250);
    for (const password of COMMON_PASSWORDS) expect(password.length).toBeGreaterThanOrEqual(8);
  });
});
