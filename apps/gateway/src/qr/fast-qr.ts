import type { create, QRCodeSegment } from 'qrcode';

/*
 * A faster `QRCode.toString(text, { type: 'svg', width, margin: 4, errorCorrectionLevel: 'M' })` (qrcode 1.5.x) that
 * returns the very same string, so ETags do not change. Most of qrcode's time goes to choosing the mask: it applies
 * each of the 8 masks to its BitMatrix and scores it through a method call per module. Here qrcode still encodes the
 * symbol (once, with mask 0 forced, and from segments chosen here: its own segment search costs as much as the rest of
 * the encoding); the mask is scored and applied over flat typed arrays, and the SVG path is built in one pass over runs
 * of dark modules. fast-qr.spec.ts checks the output against the library, byte for byte.
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
// The finder-like 1:1:3:1:1 pattern with 4 light modules after or before it, as the last 11 bits seen on a line.
const FINDER_LIKE_LIGHT_AFTER = 0x5d0;
const FINDER_LIKE_LIGHT_BEFORE = 0x05d;

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
  /** Module index of format bit i near the top-left finder and down the left (2i), and of its copy (2i + 1). */
  formatModules: Int32Array;
  /** Per mask, 1 where it flips a module: data modules only, since function patterns are never masked. */
  maskFlips: Uint8Array[];
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
  const layout = { formatModules, maskFlips: flips };
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
 * Lookup tables that keep `penalty` free of data-dependent branches (a masked symbol is noise to a branch predictor).
 * N1 scores a run of n ≥ 5 same-coloured modules 3 + (n - 5): 3 when a run reaches 5, then 1 per further module.
 */
const MAX_SIZE = 177;
const RUN_POINTS = Uint8Array.from({ length: MAX_SIZE + 1 }, (_, run) => (run === 5 ? N1_WEIGHT : run > 5 ? 1 : 0));
const IS_FINDER_LIKE = Uint8Array.from({ length: 0x800 }, (_, bits) => (bits === FINDER_LIKE_LIGHT_AFTER || bits === FINDER_LIKE_LIGHT_BEFORE ? 1 : 0));
// Indexed by the dark modules in a 2×2 block: all light or all dark counts.
const IS_SAME_COLOUR_BLOCK = Uint8Array.of(1, 0, 0, 0, 1);

/**
 * qrcode's penalty N1 + N2 + N3 + N4 of a masked symbol, with its quirks (N3 counts from the 11th module of a line),
 * in one pass in memory order: rows are scanned as they come, each column through its entry of `columnState` (run
 * length above bit 11, the last 11 modules below), 2×2 blocks by their bottom-right module. Every rule only adds, so
 * once the points so far reach `giveUpAt` (the best penalty yet) the mask cannot win: the partial sum is returned then.
 */
function penalty(modules: Uint8Array, size: number, columnState: Int32Array, giveUpAt: number): number {
  columnState.fill(0);
  let runPoints = 0;
  let finderLikeCount = 0;
  let sameColourBlocks = 0;
  let darkModules = 0;
  for (let row = 0; row < size; row += 1) {
    const rowStart = row * size;
    let rowRun = 0;
    let rowBits = 0;
    let left = 0;
    let aboveLeft = 0;
    for (let col = 0; col < size; col += 1) {
      const module = modules[rowStart + col];
      const above = row > 0 ? modules[rowStart - size + col] : 0;
      darkModules += module;

      // 1 when the module continues the run to its left (above), else 0; `& -same` then keeps or resets the run.
      const sameAsLeft = col > 0 ? 1 ^ module ^ left : 0;
      rowRun = (rowRun & -sameAsLeft) + 1;
      runPoints += RUN_POINTS[rowRun];
      rowBits = ((rowBits << 1) & 0x7ff) | module;
      if (col >= 10) finderLikeCount += IS_FINDER_LIKE[rowBits];

      const state = columnState[col];
      const sameAsAbove = row > 0 ? 1 ^ module ^ above : 0;
      const columnRun = ((state >>> 11) & -sameAsAbove) + 1;
      const columnBits = ((state << 1) & 0x7ff) | module;
      columnState[col] = (columnRun << 11) | columnBits;
      runPoints += RUN_POINTS[columnRun];
      if (row >= 10) finderLikeCount += IS_FINDER_LIKE[columnBits];

      if (row > 0 && col > 0) sameColourBlocks += IS_SAME_COLOUR_BLOCK[module + left + above + aboveLeft];
      left = module;
      aboveLeft = above;
    }
    const pointsSoFar = runPoints + sameColourBlocks * N2_WEIGHT + finderLikeCount * N3_WEIGHT;
    if (pointsSoFar >= giveUpAt) return pointsSoFar;
  }
  // The same floating-point expression as qrcode's getPenaltyN4, so the rounding is the same too.
  const darkDeviation = Math.abs(Math.ceil((darkModules * 100) / modules.length / 5) - 10);

  return runPoints + sameColourBlocks * N2_WEIGHT + finderLikeCount * N3_WEIGHT + darkDeviation * N4_WEIGHT;
}

/**
 * The mask qrcode's getBestMask chooses for a symbol: the lowest penalty, the first of equals (masks tried 0 to 7),
 * each scored with its own format bits in place. `unmasked` holds the modules row by row before any mask (its format
 * bits do not matter), `reserved` qrcode's reservedBit for a symbol of that size.
 */
export function bestMaskPattern(unmasked: Uint8Array, size: number, reserved: Uint8Array): number {
  const layout = layoutFor(size, reserved);
  const masked = new Uint8Array(unmasked.length);
  const columnState = new Int32Array(size);
  let best = 0;
  let lowestPenalty = Infinity;
  for (let pattern = 0; pattern < MASK_COUNT; pattern += 1) {
    applyMask(unmasked, layout, pattern, masked);
    const points = penalty(masked, size, columnState, lowestPenalty);
    if (points < lowestPenalty) {
      lowestPenalty = points;
      best = pattern;
    }
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
