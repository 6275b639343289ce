import QRCode from 'qrcode';
import { formatTagCode, foundPageUrl, relayTagAddress } from '@homing/contracts';

// A4 in millimetres, 4 × 6 tags a page: a 32 mm QR code (scans from arm's length) with its code printed under it.
const PAGE = { width: 210, height: 297, margin: 10, header: 8 };
const GRID = { columns: 4, rows: 6 };
const QR_MM = 32;
export const TAGS_PER_PAGE = GRID.columns * GRID.rows;

/** Pages needed to print `count` tags. */
export function sheetPages(count: number): number {
  return Math.max(1, Math.ceil(count / TAGS_PER_PAGE));
}

function escapeXml(text: string): string {
  // Characters XML 1.0 does not allow at all (controls, U+FFFE, U+FFFF, a lone surrogate) would make the sheet no
  // SVG at all: they go; the rest is escaped where markup would read it.
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/[<>&"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The QR code of a URL as an SVG element placed at (x, y), `size` wide, in the page's millimetres. */
async function qrElement(url: string, x: number, y: number, size: number): Promise<string> {
  // qrcode's own SVG (quiet zone of 4 modules, correction M, like the gateway's /qr), re-placed on the page.
  const svg = await QRCode.toString(url, { type: 'svg', margin: 4, errorCorrectionLevel: 'M' });
  const viewBox = /viewBox="([^"]+)"/.exec(svg)?.[1];
  if (!viewBox) throw new Error('qrcode produced an SVG without a viewBox');
  const content = svg.slice(svg.indexOf('>') + 1, svg.lastIndexOf('</svg>'));
  return `<svg x="${x}" y="${y}" width="${size}" height="${size}" viewBox="${viewBox}" shape-rendering="crispEdges">${content}</svg>`;
}

/**
 * One A4 page of a batch's printable sheet: each tag's QR code (opening `publicUrl/found/{code}`) with the code printed
 * as `XXXX-XXXX-XXXX-XXXX` under it, so a finder without a camera can type it, and under that the tag's e-mail relay
 * address, for a finder without a smartphone.
 */
export async function renderSheetPage(sheet: { publicUrl: string; relayDomain: string; label: string; codes: string[]; page: number; pages: number }): Promise<string> {
  const cellWidth = (PAGE.width - 2 * PAGE.margin) / GRID.columns;
  const cellHeight = (PAGE.height - 2 * PAGE.margin - PAGE.header) / GRID.rows;
  const cells = await Promise.all(
    sheet.codes.slice(0, TAGS_PER_PAGE).map(async (code, index) => {
      const left = PAGE.margin + (index % GRID.columns) * cellWidth;
      const top = PAGE.margin + PAGE.header + Math.floor(index / GRID.columns) * cellHeight;
      const formatted = formatTagCode(code);
      const qr = await qrElement(foundPageUrl(sheet.publicUrl, code), left + (cellWidth - QR_MM) / 2, top + 2, QR_MM);
      const text = `<text x="${left + cellWidth / 2}" y="${top + QR_MM + 7}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="3.6" text-anchor="middle">${formatted}</text>`;
      const relay = `<text x="${left + cellWidth / 2}" y="${top + QR_MM + 10.2}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="2" text-anchor="middle">${escapeXml(relayTagAddress(code, sheet.relayDomain))}</text>`;
      return qr + text + relay;
    }),
  );
  const title = `${escapeXml(sheet.label)} · page ${sheet.page} of ${sheet.pages}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE.width}mm" height="${PAGE.height}mm" viewBox="0 0 ${PAGE.width} ${PAGE.height}">`,
    `<rect width="${PAGE.width}" height="${PAGE.height}" fill="#ffffff"/>`,
    `<text x="${PAGE.margin}" y="${PAGE.margin + 3}" font-family="sans-serif" font-size="3.5">${title}</text>`,
    ...cells,
    '</svg>',
  ].join('\n');
}
