import { encodeTagCode, formatTagCode, parseTagCode } from './tag-code';

describe('tag codes', () => {
  it('encodes 80 bits as 16 Crockford base32 characters', () => {
    expect(encodeTagCode(new Uint8Array(10))).toBe('0000000000000000');
    expect(encodeTagCode(new Uint8Array(10).fill(255))).toBe('ZZZZZZZZZZZZZZZZ');
    expect(encodeTagCode(Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))).toBe('0000000000000001');
  });

  it('refuses anything but 10 bytes of randomness', () => {
    expect(() => encodeTagCode(new Uint8Array(9))).toThrow(RangeError);
  });

  it('reads a code as a person types it: any case, hyphens, spaces, and look-alike letters', () => {
    expect(parseTagCode('abcd-efgh-jkmn-pqrs')).toBe('ABCDEFGHJKMNPQRS');
    expect(parseTagCode(' ABCD EFGH JKMN PQRS ')).toBe('ABCDEFGHJKMNPQRS');
    expect(parseTagCode('oooo-iiii-llll-0000')).toBe('0000111111110000');
  });

  it.each([
    ['too short', 'ABCD-EFGH'],
    ['too long', 'ABCD-EFGH-JKMN-PQRS-T'],
    ['a letter Crockford excludes', 'UUUU-EFGH-JKMN-PQRS'],
    ['SQL', "' OR 1=1 --"],
    ['URL-encoded', 'ABCD%2DEFGH%2DJKMN%2DPQRS'],
    ['not a string', 42],
    ['a huge string', 'A'.repeat(100_000)],
  ])('rejects %s', (_, input) => {
    expect(parseTagCode(input)).toBeNull();
  });

  it('formats the canonical form in groups of four', () => {
    expect(formatTagCode('ABCDEFGHJKMNPQRS')).toBe('ABCD-EFGH-JKMN-PQRS');
  });
});
