import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type PDFKitDocument from 'pdfkit';
import { formatTagCode, foundPageUrl, relayTagAddress } from '@homing/contracts';
import { createQrSymbol } from '../qr/fast-qr';

// The grid of items' SVG sheet (apps/items/src/tag-batches/tag-sheet.ts), so a batch's `pages` holds for both: A4 in
// millimetres, 4 × 6 tags a page, a 32 mm QR code (quiet zone included) with its code printed under it.
const PAGE = { width: 210, height: 297, margin: 10, header: 8 };
const GRID = { columns: 4, rows: 6 };
const QR_MM = 32;
const CELL = { width: (PAGE.width - 2 * PAGE.margin) / GRID.columns, height: (PAGE.height - 2 * PAGE.margin - PAGE.header) / GRID.rows };
// Marks 2 mm long, 0.5 mm clear of the tag's corner: they stay inside the 5.8 mm between rows.
const CROP_MARK = { length: 2, gap: 0.5 };
// As /qr and the SVG sheet: four modules of quiet zone (ISO/IEC 18004), correction M.
const QUIET_ZONE_MODULES = 4;
const ERROR_CORRECTION = 'M';
const POINTS_PER_MM = 72 / 25.4;

// Loaded with the first sheet rather than at start-up: pdfkit and its fonts are about 20 MB of the gateway's memory and
// 100 ms of its start (B8), for an admin's rare download.
let pdfKitLoaded: Promise<typeof PDFKitDocument> | undefined;
const loadPdfKit = () => (pdfKitLoaded ??= import('pdfkit').then((module) => module.default));

export const TAGS_PER_PDF_PAGE = GRID.columns * GRID.rows;

// The header's label is an admin's text, in any script. PDF's built-in Helvetica knows WinAnsi only, and pdfkit writes
// any other character as bytes that garble the rest of the line ("page 1 of 2" with it): the label is drawn with a
// Unicode font when the machine has one (the gateway's image installs fonts-dejavu-core: Latin, Greek, Cyrillic),
// else in Helvetica with what it cannot show as '?'.
const UNICODE_FONT_FILES = ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'];
let unicodeFont: string | null | undefined;
const unicodeFontFile = () => (unicodeFont === undefined ? (unicodeFont = UNICODE_FONT_FILES.find((file) => existsSync(file)) ?? null) : unicodeFont);

// Windows-1252's printable characters beyond Latin-1 (WinAnsiEncoding's 0x80–0x9F).
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Text Helvetica can draw: a character it cannot, without its accents where that leaves one it can, else '?'. */
export function winAnsiText(text: string): string {
  const drawable = (character: string) => {
    const code = character.codePointAt(0) as number;
    return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(character);
  };
  return [...text]
    .map((character) => {
      if (drawable(character)) return character;
      const bare = character.normalize('NFKD').replace(/\p{M}/gu, '');
      return bare.length > 0 && [...bare].every(drawable) ? bare : '?';
    })
    .join('');
}

/** Pages of a batch of `count` tags, known before a code is read. */
export function pdfSheetPages(count: number): number {
  return Math.max(1, Math.ceil(count / TAGS_PER_PDF_PAGE));
}

/** Draws the QR code of `url` as filled rectangles (one per horizontal run of dark modules): a vector at any scale. */
function drawQr(doc: PDFKit.PDFDocument, url: string, x: number, y: number, size: number): void {
  const { modules } = createQrSymbol(url, { errorCorrectionLevel: ERROR_CORRECTION });
  const moduleSize = size / (modules.size + 2 * QUIET_ZONE_MODULES);
  const origin = { x: x + QUIET_ZONE_MODULES * moduleSize, y: y + QUIET_ZONE_MODULES * moduleSize };
  for (let row = 0; row < modules.size; row += 1) {
    for (let column = 0; column < modules.size; ) {
      if (!modules.get(row, column)) {
        column += 1;
        continue;
      }
      const start = column;
      while (column < modules.size && modules.get(row, column)) column += 1;
      doc.rect(origin.x + start * moduleSize, origin.y + row * moduleSize, (column - start) * moduleSize, moduleSize);
    }
  }
  doc.fillColor('black').fill();
}

/** Short lines at the four corners of a tag, pointing away from it, to cut along. */
function drawCropMarks(doc: PDFKit.PDFDocument, tag: { left: number; top: number; width: number; height: number }, mm: (value: number) => number): void {
  for (const [x, outwardX] of [[tag.left, -1], [tag.left + tag.width, 1]] as const) {
    for (const [y, outwardY] of [[tag.top, -1], [tag.top + tag.height, 1]] as const) {
      const near = CROP_MARK.gap;
      const far = CROP_MARK.gap + CROP_MARK.length;
      doc.moveTo(mm(x), mm(y + outwardY * near)).lineTo(mm(x), mm(y + outwardY * far));
      doc.moveTo(mm(x + outwardX * near), mm(y)).lineTo(mm(x + outwardX * far), mm(y));
    }
  }
  doc.lineWidth(0.25).strokeColor('black').stroke();
}

interface SheetOptions {
  publicUrl: string;
  /** Each tag shows its e-mail relay address under its code, for a finder without a smartphone. */
  relayDomain: string;
  label: string;
  pages: number;
}

function drawPage(doc: PDFKit.PDFDocument, sheet: SheetOptions, page: number, codes: string[]): void {
  const mm = (value: number) => value * POINTS_PER_MM;
  doc.addPage({ size: 'A4', margin: 0 });
  const header = `${sheet.label} · page ${page} of ${sheet.pages}`;
  const font = unicodeFontFile();
  doc.font(font ?? 'Helvetica').fontSize(10).fillColor('black');
  doc.text(font ? header : winAnsiText(header), mm(PAGE.margin), mm(PAGE.margin), { lineBreak: false });
  codes.forEach((code, index) => {
    const left = PAGE.margin + (index % GRID.columns) * CELL.width;
    const top = PAGE.margin + PAGE.header + Math.floor(index / GRID.columns) * CELL.height;
    // The cut-out tag: the QR code, its printed code and its relay address, centred in the cell with a little room around.
    drawCropMarks(doc, { left: left + (CELL.width - QR_MM) / 2 - 1, top: top + 1, width: QR_MM + 2, height: QR_MM + 9 }, mm);
    drawQr(doc, foundPageUrl(sheet.publicUrl, code), mm(left + (CELL.width - QR_MM) / 2), mm(top + 2), mm(QR_MM));
    doc
      .font('Courier')
      .fontSize(10)
      .fillColor('black')
      .text(formatTagCode(code), mm(left), mm(top + QR_MM + 3), { width: mm(CELL.width), align: 'center', lineBreak: false })
      .fontSize(5.5)
      .text(relayTagAddress(code, sheet.relayDomain), mm(left), mm(top + QR_MM + 7), { width: mm(CELL.width), align: 'center', lineBreak: false });
  });
}

/**
 * A batch's printable sheet as one PDF, drawn from its codes a page of the sheet at a time and yielded as it is
 * written: whoever reads the generator sets the pace, so only a page or two of the document is ever in memory.
 */
export async function* renderTagSheetPdf(sheet: SheetOptions, codes: AsyncIterable<string[]>): AsyncGenerator<Buffer> {
  const PDFDocument = await loadPdfKit();
  const doc = new PDFDocument({ autoFirstPage: false, info: { Title: sheet.label, Creator: 'Homing' } });
  const written: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => written.push(chunk));
  const ended = once(doc, 'end');
  // A reader that stops early never awaits the end: its rejection must not go unhandled.
  ended.catch(() => undefined);
  let page = 0;
  let pending: string[] = [];
  const flushed = async function* (): AsyncGenerator<Buffer> {
    // pdfkit pushes a page's objects when the next page begins; a turn of the event loop lets them arrive.
    await new Promise((resolve) => setImmediate(resolve));
    yield* written.splice(0);
  };
  for await (const batch of codes) {
    pending = pending.concat(batch);
    while (pending.length >= TAGS_PER_PDF_PAGE) {
      drawPage(doc, sheet, (page += 1), pending.slice(0, TAGS_PER_PDF_PAGE));
      pending = pending.slice(TAGS_PER_PDF_PAGE);
      yield* flushed();
    }
  }
  if (pending.length > 0 || page === 0) drawPage(doc, sheet, (page += 1), pending);
  doc.end();
  await ended;
  yield* written.splice(0);
}
