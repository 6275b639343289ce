import { emailArgument, maskEmail } from './admin-rights.command';

describe('admin rights commands', () => {
  it('reads the address after --email, lower-cased', () => {
    expect(emailArgument(['--email', ' Olga@Example.TEST '])).toBe('olga@example.test');
  });

  it('refuses a missing or invalid --email with a message to act on', () => {
    expect(() => emailArgument([])).toThrow('--email <address> is required');
    expect(() => emailArgument(['--email'])).toThrow('--email <address> is required');
    expect(() => emailArgument(['--email', 'not-an-address'])).toThrow('--email is not a valid e-mail address');
  });

  it('masks an address for logs', () => {
    expect(maskEmail('olga@example.test')).toBe('o***@example.test');
  });
});
