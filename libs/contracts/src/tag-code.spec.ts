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

  it('reads Unicode as the general rule does: its spaces are separators and its case mappings count', () => {
    // U+00A0 no-break space, U+3000 ideographic space; U+0131 dotless i upper-cases to I (then 1), U+017F long s to S.
    expect(parseTagCode('ABCD\u00a0EFGH\u3000JKMN-PQRS')).toBe('ABCDEFGHJKMNPQRS');
    expect(parseTagCode('\u0131\u017fCD-EFGH-JKMN-PQRS')).toBe('1SCDEFGHJKMNPQRS');
    expect(parseTagCode('ÄBCD-EFGH-JKMN-PQRS')).toBeNull();
  });

  it('reads every string as the general rule (upper-case, drop spaces and hyphens, map I, L, O) would', () => {
    const reference = (input: string) => {
      const canonical = input.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
      return input.length <= 40 && /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{16}$/.test(canonical) ? canonical : null;
    };
    // Mostly code characters, with every ASCII character and some Unicode ones mixed in.
    const pool = `${'0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyzIiLlOo-- '.repeat(4)}${Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join('')}\u00a0\u3000\u0131\u017f\u212aÄé`;
    let seed = 29;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let run = 0; run < 20_000; run += 1) {
      const length = 14 + Math.floor(random() * 8);
      const input = Array.from({ length }, () => pool[Math.floor(random() * pool.length)]).join('');
      expect([input, parseTagCode(input)]).toEqual([input, reference(input)]);
    }
  });

  it('formats the canonical form in groups of four', () => {
    expect(formatTagCode('ABCDEFGHJKMNPQRS')).toBe('ABCD-EFGH-JKMN-PQRS');
  });
});
