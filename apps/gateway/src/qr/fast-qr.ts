import type { create, QRCodeSegment } from 'qrcode';

/*
 * A faster `QRCode.toString(text, { type: 'svg', width, margin: 4, errorCorrectionLevel: 'M' })` (qrcode 1.5.x) that
 * returns the very same string, so ETags do not change. Most of qrcode's time goes to choosing the mask: it applies
 * each of the 8 masks to its BitMatrix and scores it through a method call per module. Here qrcode still encodes the
 * symbol (once, with mask 0 forced, and from segments chosen here: its own segment search costs as much as the rest of
 * the encoding); each mask is scored over the symbol's bits, 32 lines a step (`linePenalty`), the chosen one applied over
 * flat typed arrays, and the SVG path is built in one pass over runs of dark modules. fast-qr.spec.ts checks each
 * mask's penalty against the library's own scoring and the output against the library, byte for byte.
 */

// qrcode's internals, for the version estimate it makes before choosing segments (not part of its typed API), and its
// encoder without the package's index, which loads every renderer (PNG with pngjs, terminal, canvas) at start-up.
// Plain requires of the package's own files: the bundle leaves node_modules external, so they load from qrcode at run
// time.
/* eslint-disable @typescript-eslint/no-require-imports */
/** `QRCode.create`: a symbol's modules, as the library encodes it. */
export const createQrSymbol = (require('qrcode/lib/core/qrcode') as { create: typeof create }).create;
const qrcodeSegments = require('qrcode/lib/core/segments') as { rawSplit(text: string): unknown[] };
const qrcodeVersions = require('qrcode/lib/core/version') as { getBestVersionForData(segments: unknown[], level: unknown): number | undefined };
const qrcodeLevels = require('qrcode/lib/core/error-correction-level') as { M: unknown };
const qrcodeUtils = require('qrcode/lib/core/utils') as { isKanjiModeEnabled(): boolean };
/* eslint-enable @typescript-eslint/no-require-imports */

// Four modules of white around the symbol: the quiet zone ISO/IEC 18004 asks for, which scanners rely on (the SVG
// here and the PNG of qr-images.ts).
export const QUIET_ZONE_MODULES = 4;
// M recovers about 15 % of a damaged symbol: a scuffed tag on a keyring still scans, and the symbol stays small.
const ERROR_CORRECTION = 'M';
const MASK_COUNT = 8;
// qrcode's penalty weights (lib/core/mask-pattern.js PenaltyScores).
const N1_WEIGHT = 3;
const N2_WEIGHT = 3;
const N3_WEIGHT = 40;
const N4_WEIGHT = 10;

/** Whether mask `pattern` flips the module at (`row`, `col`): qrcode's getMaskAt, formula for formula. */
function maskFlips(pattern: number, row: number, col: number): boolean {
  switch (pattern) {
    case 0:
      return (row + col) % 2 === 0;
    case 1:
      return row % 2 === 0;
    case 2:
      return col % 3 === 0;
    case 3:
      return (row + col) % 3 === 0;
    case 4:
      return (Math.floor(row / 2) + Math.floor(col / 3)) % 2 === 0;
    case 5:
      return ((row * col) % 2) + ((row * col) % 3) === 0;
    case 6:
      return (((row * col) % 2) + ((row * col) % 3)) % 2 === 0;
    case 7:
      return (((row * col) % 3) + ((row + col) % 2)) % 2 === 0;
    default:
      throw new RangeError(`no such mask pattern: ${pattern}`);
  }
}

/** The 15 format bits for level M and `mask`: a (15, 5) BCH code, XORed so that no format is all zeros (format-info.js). */
function encodedFormatBits(mask: number): number {
  const GENERATOR = 0b101_0011_0111;
  const XOR_MASK = 0b101_0100_0001_0010;
  const LEVEL_M_BITS = 0b00;
  const data = (LEVEL_M_BITS << 3) | mask;
  let remainder = data << 10;
  for (let bit = 14; bit >= 10; bit -= 1) {
    if (remainder & (1 << bit)) remainder ^= GENERATOR << (bit - 10);
  }
  return ((data << 10) | remainder) ^ XOR_MASK;
}

const FORMAT_BITS_BY_MASK = Array.from({ length: MASK_COUNT }, (_, mask) => encodedFormatBits(mask));

/** What depends only on the symbol size (the version): where the format bits go and what each mask flips. */
interface SymbolLayout {
  size: number;
  /** Module index of format bit i near the top-left finder and down the left (2i), and of its copy (2i + 1). */
  formatModules: Int32Array;
  /** Per mask, 1 where it flips a module: data modules only, since function patterns are never masked. */
  maskFlips: Uint8Array[];
  /** The same flips packed as rows and as columns, for scoring. */
  packedFlips: PackedLines[];
}

// At most 40 entries (one per version), computed once each.
const layoutsBySize = new Map<number, SymbolLayout>();

/**
 * The layout of symbols of `size` modules a side. `reserved` (qrcode's reservedBit) marks the function patterns,
 * which depend on the version alone, so any symbol of that size may supply it.
 */
function layoutFor(size: number, reserved: Uint8Array): SymbolLayout {
  const cached = layoutsBySize.get(size);
  if (cached) return cached;
  // The module positions of qrcode's setupFormatInfo, bit by bit.
  const formatModules = new Int32Array(30);
  for (let bit = 0; bit < 15; bit += 1) {
    const verticalRow = bit < 6 ? bit : bit < 8 ? bit + 1 : size - 15 + bit;
    const horizontalCol = bit < 8 ? size - bit - 1 : bit < 9 ? 15 - bit : 15 - bit - 1;
    formatModules[2 * bit] = verticalRow * size + 8;
    formatModules[2 * bit + 1] = 8 * size + horizontalCol;
  }
  const flips = Array.from({ length: MASK_COUNT }, (_, pattern) => {
    const flipped = new Uint8Array(size * size);
    for (let row = 0; row < size; row += 1) {
      for (let col = 0; col < size; col += 1) {
        const index = row * size + col;
        if (!reserved[index] && maskFlips(pattern, row, col)) flipped[index] = 1;
      }
    }
    return flipped;
  });
  const layout = { size, formatModules, maskFlips: flips, packedFlips: flips.map((flipped) => packLines(flipped, size)) };
  layoutsBySize.set(size, layout);
  return layout;
}

/** `target = modules ^ flips`, four modules at a time where the arrays allow 32-bit views (a quarter of the work). */
function xorModules(modules: Uint8Array, flips: Uint8Array, target: Uint8Array): void {
  const length = modules.length;
  let index = 0;
  if ((modules.byteOffset | flips.byteOffset | target.byteOffset) % 4 === 0) {
    const words = length >> 2;
    const moduleWords = new Uint32Array(modules.buffer, modules.byteOffset, words);
    const flipWords = new Uint32Array(flips.buffer, flips.byteOffset, words);
    const targetWords = new Uint32Array(target.buffer, target.byteOffset, words);
    for (let word = 0; word < words; word += 1) targetWords[word] = moduleWords[word] ^ flipWords[word];
    index = words << 2;
  }
  for (; index < length; index += 1) target[index] = modules[index] ^ flips[index];
}

/** Writes into `target` the symbol `unmasked` under mask `pattern`, format bits included, as qrcode would. */
function applyMask(unmasked: Uint8Array, layout: SymbolLayout, pattern: number, target: Uint8Array): void {
  xorModules(unmasked, layout.maskFlips[pattern], target);
  const formatBits = FORMAT_BITS_BY_MASK[pattern];
  for (let bit = 0; bit < 15; bit += 1) {
    const value = (formatBits >> bit) & 1;
    target[layout.formatModules[2 * bit]] = value;
    target[layout.formatModules[2 * bit + 1]] = value;
  }
}

/*
 * The penalty is scored over bits, 32 modules to a word: qrcode's rules look along each row and each column for runs
 * and finder-like patterns, and a word holding one module of each of 32 lines lets one step along them all at once.
 * Stepping along the rows, the word at step c holds column c (bit r: module (r, c)); stepping along the columns, it
 * holds row r. A symbol is therefore packed both ways (`PackedLines`): each way is the other's lanes. A symbol of more
 * than 32 modules a side has ⌈size / 32⌉ words to a step; lanes never interact, so each word is stepped on its own.
 */

/** Lines of a symbol as bits: `words[t * wordsPerStep + k]` holds, at bit i, module i + 32k of the lines' step t. */
interface PackedLines {
  byRow: Int32Array;
  byColumn: Int32Array;
}

const wordsPerStepOf = (size: number): number => (size + 31) >>> 5;

/** Ones in a 32-bit word. */
function popcount(word: number): number {
  let bits = word - ((word >>> 1) & 0x55555555);
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  return Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The lanes of word `k` that are lines of a `size`-module symbol (the last word's high bits are past its edge). */
function laneMask(size: number, k: number, lanes = size): number {
  const left = lanes - 32 * k;
  return left >= 32 ? -1 : left <= 0 ? 0 : (1 << left) - 1;
}

/** A symbol's modules (row by row, 1 dark) packed as rows and as columns. */
function packLines(modules: Uint8Array, size: number): PackedLines {
  const wordsPerStep = wordsPerStepOf(size);
  const byRow = new Int32Array(size * wordsPerStep);
  const byColumn = new Int32Array(size * wordsPerStep);
  for (let row = 0; row < size; row += 1) {
    const rowStart = row * size;
    for (let col = 0; col < size; col += 1) {
      if (!modules[rowStart + col]) continue;
      byRow[row * wordsPerStep + (col >>> 5)] |= 1 << (col & 31);
      byColumn[col * wordsPerStep + (row >>> 5)] |= 1 << (row & 31);
    }
  }
  return { byRow, byColumn };
}

/**
 * N1 + N3 of every line stepped along `steps` (qrcode's getPenaltyN1 and getPenaltyN3, one direction): each run of
 * n ≥ 5 same-coloured modules scores n - 2 (N1: 3, then 1 per module past 5), each 1:1:3:1:1 finder-like pattern
 * with 4 light modules after or before it scores N3_WEIGHT (qrcode looks only at windows of 11 inside the line).
 * `coreEnds` and `lightEnds` are scratch of `size` words.
 */
function linePenalty(steps: Int32Array, size: number, coreEnds: Int32Array, lightEnds: Int32Array): number {
  const wordsPerStep = wordsPerStepOf(size);
  let runPoints = 0;
  let finderLike = 0;
  for (let k = 0; k < wordsPerStep; k += 1) {
    const lanes = laneMask(size, k);
    // Per lane: whether each of the last three steps matched the one before it, and whether the step before was 5 or
    // more into a run.
    let previous = 0;
    let equal1 = 0;
    let equal2 = 0;
    let equal3 = 0;
    let longRunBefore = 0;
    for (let t = 0; t < size; t += 1) {
      const modules = steps[t * wordsPerStep + k];
      const equal = t > 0 ? ~(modules ^ previous) : 0;
      // Lanes whose modules t-4..t share a colour: each such step is 1 point, and the step a run reaches 5 scores
      // N1_WEIGHT in all (a run of n: N1_WEIGHT + n - 5).
      const longRun = equal & equal1 & equal2 & equal3 & lanes;
      runPoints += popcount(longRun) + (N1_WEIGHT - 1) * popcount(longRun & ~longRunBefore);
      longRunBefore = longRun;
      equal3 = equal2;
      equal2 = equal1;
      equal1 = equal;
      previous = modules;
      // Where the line's modules t-6..t read dark, light, dark, dark, dark, light, dark; and t-3..t all light.
      coreEnds[t] =
        t >= 6
          ? steps[(t - 6) * wordsPerStep + k] &
            ~steps[(t - 5) * wordsPerStep + k] &
            steps[(t - 4) * wordsPerStep + k] &
            steps[(t - 3) * wordsPerStep + k] &
            steps[(t - 2) * wordsPerStep + k] &
            ~steps[(t - 1) * wordsPerStep + k] &
            modules
          : 0;
      lightEnds[t] = t >= 3 ? ~(steps[(t - 3) * wordsPerStep + k] | steps[(t - 2) * wordsPerStep + k] | steps[(t - 1) * wordsPerStep + k] | modules) : 0;
      // The window of 11 ending at t: the pattern then 4 light (0x5D0), or 4 light then the pattern (0x05D).
      if (t >= 10) finderLike += popcount(((coreEnds[t - 4] & lightEnds[t]) | (lightEnds[t - 7] & coreEnds[t])) & lanes);
    }
  }
  return runPoints + finderLike * N3_WEIGHT;
}

/** N2 (2×2 blocks of one colour, each N2_WEIGHT) and the dark modules, from the rows' words. */
function blocksAndDark(byRow: Int32Array, size: number): { blockPoints: number; dark: number } {
  const wordsPerStep = wordsPerStepOf(size);
  let blocks = 0;
  let dark = 0;
  for (let row = 0; row < size; row += 1) {
    for (let k = 0; k < wordsPerStep; k += 1) {
      const here = byRow[row * wordsPerStep + k];
      dark += popcount(here & laneMask(size, k));
      if (row === size - 1) continue;
      const below = byRow[(row + 1) * wordsPerStep + k];
      // Bit c of `hereNext` (`belowNext`) is the module right of column c in this row (the next): the word shifted
      // down, with the next word's first module on top.
      const hereNext = (here >>> 1) | (k + 1 < wordsPerStep ? byRow[row * wordsPerStep + k + 1] << 31 : 0);
      const belowNext = (below >>> 1) | (k + 1 < wordsPerStep ? byRow[(row + 1) * wordsPerStep + k + 1] << 31 : 0);
      // A block at column c (c < size - 1) when its four modules match: here = below, their right-hand neighbours
      // match, and here = its right-hand neighbour.
      const uniform = ~(here ^ below) & ~(hereNext ^ belowNext) & ~(here ^ hereNext) & laneMask(size, k, size - 1);
      blocks += popcount(uniform);
    }
  }
  return { blockPoints: blocks * N2_WEIGHT, dark };
}

/** qrcode's penalty N1 + N2 + N3 + N4 of a masked symbol packed both ways, with its quirks and its rounding. */
function penalty(lines: PackedLines, size: number, coreEnds: Int32Array, lightEnds: Int32Array): number {
  const { blockPoints, dark } = blocksAndDark(lines.byRow, size);
  // The same floating-point expression as qrcode's getPenaltyN4, so the rounding is the same too.
  const darkDeviation = Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10);
  return linePenalty(lines.byColumn, size, coreEnds, lightEnds) + linePenalty(lines.byRow, size, coreEnds, lightEnds) + blockPoints + darkDeviation * N4_WEIGHT;
}

/** Packs `unmasked` under mask `pattern` into `target`, format bits included, as `applyMask` lays it out. */
function maskPacked(unmasked: PackedLines, layout: SymbolLayout, pattern: number, target: PackedLines): void {
  const rowFlips = layout.packedFlips[pattern].byRow;
  const columnFlips = layout.packedFlips[pattern].byColumn;
  for (let index = 0; index < rowFlips.length; index += 1) {
    target.byRow[index] = unmasked.byRow[index] ^ rowFlips[index];
    target.byColumn[index] = unmasked.byColumn[index] ^ columnFlips[index];
  }
  const formatBits = FORMAT_BITS_BY_MASK[pattern];
  const wordsPerStep = wordsPerStepOf(layout.size);
  for (let copy = 0; copy < 30; copy += 1) {
    const index = layout.formatModules[copy];
    const row = Math.floor(index / layout.size);
    const col = index - row * layout.size;
    const rowWord = row * wordsPerStep + (col >>> 5);
    const columnWord = col * wordsPerStep + (row >>> 5);
    if ((formatBits >> (copy >> 1)) & 1) {
      target.byRow[rowWord] |= 1 << (col & 31);
      target.byColumn[columnWord] |= 1 << (row & 31);
    } else {
      target.byRow[rowWord] &= ~(1 << (col & 31));
      target.byColumn[columnWord] &= ~(1 << (row & 31));
    }
  }
}

/**
 * qrcode's penalty of the symbol under each mask, 0 to 7, with that mask's format bits in place. `unmasked` holds the
 * modules row by row before any mask (its format bits do not matter), `reserved` qrcode's reservedBit for a symbol of
 * that size.
 */
export function maskPenalties(unmasked: Uint8Array, size: number, reserved: Uint8Array): number[] {
  const layout = layoutFor(size, reserved);
  const packed = packLines(unmasked, size);
  const masked: PackedLines = { byRow: new Int32Array(packed.byRow.length), byColumn: new Int32Array(packed.byColumn.length) };
  const coreEnds = new Int32Array(size);
  const lightEnds = new Int32Array(size);
  return Array.from({ length: MASK_COUNT }, (_, pattern) => {
    maskPacked(packed, layout, pattern, masked);
    return penalty(masked, size, coreEnds, lightEnds);
  });
}

/** The mask qrcode's getBestMask chooses for a symbol: the lowest penalty, the first of equals (masks tried 0 to 7). */
export function bestMaskPattern(unmasked: Uint8Array, size: number, reserved: Uint8Array): number {
  const penalties = maskPenalties(unmasked, size, reserved);
  let best = 0;
  for (let pattern = 1; pattern < MASK_COUNT; pattern += 1) {
    if (penalties[pattern] < penalties[best]) best = pattern;
  }
  return best;
}

/** A symbol's modules row by row (1 dark), as `QRCode.create(text, { errorCorrectionLevel: 'M' })` lays them out. */
export interface QrModules {
  size: number;
  modules: Uint8Array;
  maskPattern: number;
}

type SegmentMode = 'numeric' | 'alphanumeric' | 'byte';

/** A segment for QRCode.create: `data` encoded in `mode`. */
interface Segment {
  data: string;
  mode: SegmentMode;
}

/** A run of characters in one mode; `length` counts characters, or UTF-8 bytes in byte mode, as qrcode counts them. */
interface Piece extends Segment {
  length: number;
}

// Bits of the character count field for versions 1-9, 10-26 and 27-40 (mode.js ccBits).
const COUNT_BITS: Record<SegmentMode, readonly [number, number, number]> = { numeric: [10, 12, 14], alphanumeric: [9, 11, 13], byte: [8, 16, 16] };
const MODE_INDICATOR_BITS = 4;
const ALPHANUMERIC_SYMBOLS = ' $%*+-./:';

function countBits(mode: SegmentMode, version: number): number {
  const bits = COUNT_BITS[mode];
  return version < 10 ? bits[0] : version < 27 ? bits[1] : bits[2];
}

/** Data bits of `length` characters in `mode` (the getBitsLength of numeric-, alphanumeric- and byte-data.js). */
function dataBits(length: number, mode: SegmentMode): number {
  if (mode === 'numeric') return 10 * Math.floor(length / 3) + (length % 3 ? (length % 3) * 3 + 1 : 0);
  if (mode === 'alphanumeric') return 11 * Math.floor(length / 2) + 6 * (length % 2);
  return length * 8;
}

function modeOf(char: string): SegmentMode {
  if (char >= '0' && char <= '9') return 'numeric';
  if ((char >= 'A' && char <= 'Z') || ALPHANUMERIC_SYMBOLS.includes(char)) return 'alphanumeric';
  return 'byte';
}

/** qrcode's getSegmentsFromString without Kanji: maximal runs of digits, of other alphanumerics, of anything else. */
function rawPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  for (let index = 1; index <= text.length; index += 1) {
    if (index < text.length && modeOf(text[index]) === modeOf(text[start])) continue;
    const data = text.slice(start, index);
    const mode = modeOf(text[start]);
    // qrcode's getStringByteLength, which also throws on lone surrogates as qrcode does.
    pieces.push({ data, mode, length: mode === 'byte' ? unescape(encodeURIComponent(data)).length : data.length });
    start = index;
  }
  return pieces;
}

/** A node of qrcode's segment graph, with the cheapest way found to reach it and how many paths share that cost. */
class GraphNode implements Piece {
  lastCount = 0;
  cost = Number.POSITIVE_INFINITY;
  cheapestPaths = 0;
  from: GraphNode | undefined = undefined;

  constructor(
    readonly data: string,
    readonly mode: SegmentMode,
    readonly length: number,
  ) {}
}

/**
 * The segments qrcode's Segments.fromString chooses, or undefined when it cannot be known here. qrcode builds a layered
 * graph (each raw piece in each mode that can hold it, edge weights in bits, with its own bookkeeping of merged runs,
 * reproduced as is: `lastCount`) and takes a shortest path with dijkstrajs. When exactly one path is shortest, any
 * shortest-path search finds it, so this dynamic programme over the layers does; on a tie, dijkstrajs's queue order
 * would decide, so the caller lets qrcode choose.
 */
function chooseSegments(text: string, version: number): Segment[] | undefined {
  let previous: (GraphNode | undefined)[] = [undefined]; // undefined: the start node
  for (const piece of rawPieces(text)) {
    const current = [new GraphNode(piece.data, piece.mode, piece.length)];
    if (piece.mode === 'numeric') current.push(new GraphNode(piece.data, 'alphanumeric', piece.length));
    if (piece.mode !== 'byte') current.push(new GraphNode(piece.data, 'byte', piece.length));
    for (const node of current) {
      for (const before of previous) {
        let weight: number;
        if (before && before.mode === node.mode) {
          weight = dataBits(before.lastCount + node.length, node.mode) - dataBits(before.lastCount, node.mode);
          before.lastCount += node.length;
        } else {
          if (before) before.lastCount = node.length;
          weight = dataBits(node.length, node.mode) + MODE_INDICATOR_BITS + countBits(node.mode, version);
        }
        const cost = (before?.cost ?? 0) + weight;
        const paths = before?.cheapestPaths ?? 1;
        if (cost < node.cost) {
          node.cost = cost;
          node.cheapestPaths = paths;
          node.from = before;
        } else if (cost === node.cost) {
          node.cheapestPaths += paths;
        }
      }
    }
    previous = current;
  }
  let last: GraphNode | undefined;
  let cheapestPaths = 0;
  for (const node of previous) {
    if (!node) return undefined;
    if (!last || node.cost < last.cost) {
      last = node;
      cheapestPaths = node.cheapestPaths;
    } else if (node.cost === last.cost) {
      cheapestPaths += node.cheapestPaths;
    }
  }
  if (cheapestPaths !== 1) return undefined;
  // Back along the path, merging neighbours in the same mode as qrcode's mergeSegments does.
  const segments: Segment[] = [];
  for (let node = last; node; node = node.from) {
    const next = segments[0];
    if (next && next.mode === node.mode) next.data = node.data + next.data;
    else segments.unshift({ data: node.data, mode: node.mode });
  }
  return segments;
}

/** What qrcode encodes `text` as: its segments when they can be chosen here, else the text for qrcode to segment. */
export function segmentsOrText(text: string): QRCodeSegment[] | string {
  if (text === '' || qrcodeUtils.isKanjiModeEnabled()) return text;
  // qrcode segments for the version a naive split would need, or 40 when nothing fits (createSymbol).
  const estimatedVersion = qrcodeVersions.getBestVersionForData(qrcodeSegments.rawSplit(text), qrcodeLevels.M);
  // Each mode in a Segment is one the typings accept for its data; they only cannot tell which.
  return (chooseSegments(text, estimatedVersion || 40) as QRCodeSegment[] | undefined) ?? text;
}

/**
 * Encodes `text` as qrcode does at level M. qrcode encodes it once with mask 0 forced (skipping its own mask search);
 * undoing mask 0 gives the unmasked symbol, from which the best mask is chosen and applied here.
 */
export function encodeModules(text: string): QrModules {
  const { modules: symbol } = createQrSymbol(segmentsOrText(text), { errorCorrectionLevel: ERROR_CORRECTION, maskPattern: 0 });
  const { size, data, reservedBit } = symbol;
  const layout = layoutFor(size, reservedBit);
  const unmasked = new Uint8Array(data.length);
  xorModules(data, layout.maskFlips[0], unmasked);
  const maskPattern = bestMaskPattern(unmasked, size, reservedBit);
  const modules = new Uint8Array(data.length);
  applyMask(unmasked, layout, maskPattern, modules);
  return { size, modules, maskPattern };
}

// ASCII codes of the path commands.
const CHAR_M = 0x4d;
const CHAR_m = 0x6d;
const CHAR_h = 0x68;
const CHAR_SPACE = 0x20;
const CHAR_ZERO = 0x30;
const CHAR_DOT = 0x2e;
const CHAR_FIVE = 0x35;
// The path is written as ASCII bytes and read back as one flat string: no per-run strings to build, join and collect.
let pathBytes = Buffer.alloc(0);

/** Writes the decimal digits of the whole number `value` at `at`; returns where the next byte goes. */
function writeDigits(bytes: Buffer, at: number, value: number): number {
  const digits = value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : String(value).length;
  for (let place = at + digits - 1, rest = value; place >= at; place -= 1, rest = Math.floor(rest / 10)) bytes[place] = CHAR_ZERO + (rest % 10);
  return at + digits;
}

/**
 * The SVG qrcode's svg-tag renderer writes for `{ width: widthPx, margin: 4 }` and default colours: a white square and
 * one stroked path, each run of dark modules a horizontal line (`M` to the first run of a row, `m` to the next, `h`).
 */
export function writeSvg(modules: Uint8Array, size: number, widthPx: number): string {
  const sideModules = size + 2 * QUIET_ZONE_MODULES;
  // At most size / 2 runs a row, each at most "M123 123.5h123": 16 bytes a module is ample.
  if (pathBytes.length < size * size * 16) pathBytes = Buffer.alloc(size * size * 16);
  const bytes = pathBytes;
  let at = 0;
  for (let row = 0; row < size; row += 1) {
    const rowStart = row * size;
    // Where the pen stops after the row's previous run; -1 before the first.
    let penCol = -1;
    let col = 0;
    while (col < size) {
      if (!modules[rowStart + col]) {
        col += 1;
        continue;
      }
      const runStart = col;
      while (col < size && modules[rowStart + col]) col += 1;
      if (penCol < 0) {
        // `M${x} ${y}` with y = row + 4.5, the middle of the module row.
        bytes[at++] = CHAR_M;
        at = writeDigits(bytes, at, runStart + QUIET_ZONE_MODULES);
        bytes[at++] = CHAR_SPACE;
        at = writeDigits(bytes, at, row + QUIET_ZONE_MODULES);
        bytes[at++] = CHAR_DOT;
        bytes[at++] = CHAR_FIVE;
      } else {
        bytes[at++] = CHAR_m;
        at = writeDigits(bytes, at, runStart - penCol);
        bytes[at++] = CHAR_SPACE;
        bytes[at++] = CHAR_ZERO;
      }
      bytes[at++] = CHAR_h;
      at = writeDigits(bytes, at, col - runStart);
      penCol = col;
    }
  }
  // qrcode drops the size attributes below 21 px (and for 0 or NaN).
  const sizeAttributes = widthPx >= 21 ? `width="${widthPx}" height="${widthPx}" ` : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" ${sizeAttributes}viewBox="0 0 ${sideModules} ${sideModules}" shape-rendering="crispEdges">` +
    `<path fill="#ffffff" d="M0 0h${sideModules}v${sideModules}H0z"/>` +
    `<path stroke="#000000" d="${bytes.toString('latin1', 0, at)}"/></svg>\n`
  );
}

/**
 * Same string as `QRCode.toString(text, { type: 'svg', width: sizePx, margin: 4, errorCorrectionLevel: 'M' })`, for
 * well under half the CPU. Throws where qrcode would reject (empty text, text too long for a symbol).
 */
export function renderSvgFast(text: string, sizePx: number): string {
  const { size, modules } = encodeModules(text);
  return writeSvg(modules, size, sizePx);
}
