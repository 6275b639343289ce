import { toValidationMap } from './validation';
import { singleLineText } from './text';
import { z } from 'zod';

describe('singleLineText', () => {
  const schema = z.object({ name: singleLineText(10) });
  const ruleFor = (name: unknown) => {
    const result = schema.safeParse({ name });
    return result.success ? 'ok' : toValidationMap(result.error, { name }).name;
  };

  it('accepts what people type, in any script, and trims it', () => {
    expect(schema.parse({ name: '  Fiets 🚲 ' }).name).toBe('Fiets 🚲');
    expect(ruleFor('Llaves ñ')).toBe('ok');
  });

  it.each([
    ['a NUL byte', 'a\u0000b'],
    ['a line break (mail header injection)', 'K\r\nBcc: x'],
    ['a tab', 'a\tb'],
    ['DEL', 'a\u007fb'],
    ['a lone surrogate', 'a\ud800b'],
  ])('refuses %s as invalid', (_, name) => {
    expect(ruleFor(name)).toBe('invalid');
  });

  it('names the length rules', () => {
    expect(ruleFor('   ')).toBe('required');
    expect(ruleFor('x'.repeat(11))).toBe('max=10');
  });
});
