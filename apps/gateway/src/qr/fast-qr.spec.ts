import { createRequire } from 'node:module';
import QRCode, { type BitMatrix } from 'qrcode';
import { foundPageUrl } from '@homing/contracts';
import { bestMaskPattern, encodeModules, maskPenalties, renderSvgFast, segmentsOrText } from './fast-qr';

// qrcode's own mask routine, to undo mask 0 without trusting fast-qr's copy of the formulas.
const requireFromQrcode = createRequire(require.resolve('qrcode'));
const qrcodeMasks = requireFromQrcode('./core/mask-pattern') as {
  applyMask(pattern: number, matrix: BitMatrix): void;
  getPenaltyN1(matrix: BitMatrix): number;
  getPenaltyN2(matrix: BitMatrix): number;
  getPenaltyN3(matrix: BitMatrix): number;
  getPenaltyN4(matrix: BitMatrix): number;
};

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const PUBLIC_URLS = ['http://localhost:8080', 'https://homing.example', 'https://lost-and-found.tags.some-long-company-name.example.com/homing/v1'];
const SIZES = [128, 400, 1000];
const RANDOM_INPUTS = 330;

/** A seeded generator (mulberry32): the same inputs on every run, so a failure can be reproduced. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Tag URLs as the gateway encodes them: half with the code as printed (foundPageUrl), half with the bare code. */
function tagUrls(count: number): string[] {
  const random = seededRandom(20240611);
  return Array.from({ length: count }, (_, index) => {
    const code = Array.from({ length: 16 }, () => CODE_ALPHABET[Math.floor(random() * CODE_ALPHABET.length)]).join('');
    const publicUrl = PUBLIC_URLS[index % PUBLIC_URLS.length];
    return index % 2 === 0 ? foundPageUrl(publicUrl, code) : `${publicUrl}/found/${code}`;
  });
}

/** Short texts that mix digits, other alphanumerics and bytes: the segment graph's harder cases (ties included). */
function mixedTexts(count: number): string[] {
  const random = seededRandom(7);
  const alphabet = '0123456789ABCZ-:/. $abcxyz?=&ü';
  return Array.from({ length: count }, () => {
    const length = 2 + Math.floor(random() * 40);
    return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  });
}

const EDGE_TEXTS = [
  'a',
  'Z',
  '0',
  'https://homing.example/found/abcd-efgh-jkmn-pqrs',
  '12345678901234567890',
  '0'.repeat(1000),
  'HTTP://HOMING.EXAMPLE/FOUND/ABCD-EFGH-JKMN-PQRS',
  'Fundbüro: Schlüssel gefunden ✓',
  // A high version (25 at level M), where alignment patterns and version information fill the symbol.
  `https://homing.example/found/${'x'.repeat(900)}`,
  // Past version 26, where the character count fields grow.
  'HOMING-1234567-ab/'.repeat(80),
];

const TEXTS = [...new Set([...tagUrls(RANDOM_INPUTS), ...mixedTexts(150), ...EDGE_TEXTS])];

const librarySymbols = new Map<string, QRCode.QRCode>();

/** qrcode's symbol for `text` at level M, built once per text for all the tests below. */
function librarySymbol(text: string): QRCode.QRCode {
  let symbol = librarySymbols.get(text);
  if (!symbol) {
    symbol = QRCode.create(text, { errorCorrectionLevel: 'M' });
    librarySymbols.set(text, symbol);
  }
  return symbol;
}

function librarySvg(text: string, width: number): Promise<string> {
  return QRCode.toString(text, { type: 'svg', width, margin: 4, errorCorrectionLevel: 'M' });
}

/** The modules before any mask, undone by qrcode itself from a symbol forced to mask 0 (XOR twice is identity). */
function unmaskedByLibrary(text: string): BitMatrix {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M', maskPattern: 0 });
  qrcodeMasks.applyMask(0, modules);
  return modules;
}

describe('fast QR SVG', () => {
  it(`covers ${TEXTS.length} distinct texts, from version 1 to a high one`, () => {
    expect(TEXTS.slice(0, RANDOM_INPUTS)).toEqual(tagUrls(RANDOM_INPUTS)); // no duplicate tag URLs
    const versions = TEXTS.map((text) => librarySymbol(text).version);
    expect(Math.min(...versions)).toBe(1);
    expect(Math.max(...versions)).toBeGreaterThanOrEqual(27);
  });

  it('chooses the segments qrcode chooses, itself for every tag URL', () => {
    const differing = TEXTS.filter((text) => {
      const ours = segmentsOrText(text);
      if (typeof ours === 'string') return false; // left to qrcode
      const library = librarySymbol(text).segments.map(({ mode, data }) => ({ mode: mode.id.toLowerCase(), data: Buffer.from(data) }));
      return JSON.stringify(ours.map(({ mode, data }) => ({ mode, data: Buffer.from(data as string) }))) !== JSON.stringify(library);
    });
    expect(differing).toEqual([]);
    expect(TEXTS.slice(0, RANDOM_INPUTS).filter((text) => typeof segmentsOrText(text) === 'string')).toEqual([]);
  });

  it('leaves the segments to qrcode when two choices cost the same', async () => {
    // 'a123' costs 44 bits as one byte segment and as byte 'a' + numeric '123': dijkstrajs's queue order decides.
    expect(segmentsOrText('a123')).toBe('a123');
    expect(renderSvgFast('a123', 400)).toBe(await librarySvg('a123', 400));
  });

  it('chooses the mask qrcode chooses, and not always the same one', () => {
    const chosen = TEXTS.map((text) => {
      const { size, data, reservedBit } = unmaskedByLibrary(text);
      return { text, ours: bestMaskPattern(data, size, reservedBit), library: librarySymbol(text).maskPattern };
    });
    expect(chosen.filter(({ ours, library }) => ours !== library)).toEqual([]);
    // Every mask wins somewhere: a scorer stuck on one answer could not pass.
    expect(new Set(chosen.map(({ ours }) => ours)).size).toBe(8);
  });

  it('scores every mask as qrcode does, its format bits in place', () => {
    const differing = TEXTS.flatMap((text) => {
      const { size, data, reservedBit } = unmaskedByLibrary(text);
      const ours = maskPenalties(data, size, reservedBit);
      const library = ours.map((_, pattern) => {
        // qrcode's symbol forced to this mask: masked, with this mask's format bits, as getBestMask scores it.
        const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M', maskPattern: pattern as QRCode.QRCodeMaskPattern });
        return qrcodeMasks.getPenaltyN1(modules) + qrcodeMasks.getPenaltyN2(modules) + qrcodeMasks.getPenaltyN3(modules) + qrcodeMasks.getPenaltyN4(modules);
      });
      return JSON.stringify(ours) === JSON.stringify(library) ? [] : [{ text, ours, library }];
    });
    expect(differing).toEqual([]);
  });

  it('lays out the same modules as qrcode', () => {
    const differing = TEXTS.filter((text) => {
      const library = librarySymbol(text);
      const ours = encodeModules(text);
      return ours.size !== library.modules.size || ours.maskPattern !== library.maskPattern || !Buffer.from(ours.modules).equals(Buffer.from(library.modules.data));
    });
    expect(differing).toEqual([]);
  });

  it.each(SIZES)('writes the SVG qrcode writes at %i px, byte for byte', async (size) => {
    const differing: string[] = [];
    for (const text of TEXTS) {
      if (renderSvgFast(text, size) !== (await librarySvg(text, size))) differing.push(text);
    }
    expect(differing).toEqual([]);
  });

  it.each([0, 20, 21, 333.5])('sizes the SVG as qrcode does for a width of %p', async (size) => {
    expect(renderSvgFast(TEXTS[0], size)).toBe(await librarySvg(TEXTS[0], size));
  });

  it('rejects what qrcode rejects', async () => {
    await expect(librarySvg('', 400)).rejects.toThrow('No input text');
    expect(() => renderSvgFast('', 400)).toThrow('No input text');
    const tooLong = 'x'.repeat(3000);
    await expect(librarySvg(tooLong, 400)).rejects.toThrow('too big');
    expect(() => renderSvgFast(tooLong, 400)).toThrow('too big');
  });
});
