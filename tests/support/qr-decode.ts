import jsQR from 'jsqr';
import { PNG } from 'pngjs';

/** The text of the QR code in a PNG, read by jsQR (null when it finds none). */
export function decodeQrPng(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length), image.width, image.height)?.data ?? null;
}

/**
 * The text of the QR code in an SVG as the qrcode package draws it (a `viewBox` of N modules and one stroked path of
 * horizontal runs, `M x y.5 h n` / `m dx dy h n`): rasterised module by module to pixels, then read by jsQR.
 */
export function decodeQrSvg(svg: string): string | null {
  const modules = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  const path = /<path[^>]*stroke="[^"]+"[^>]*\sd="([^"]+)"/.exec(svg)?.[1];
  if (!modules || !path) throw new Error('not an SVG QR code of the expected shape');
  const dark = new Set<string>();
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of path.matchAll(/([MmhHvV])(-?[\d.]+)(?: (-?[\d.]+))?/g)) {
    if (command === 'M') [x, y] = [Number(a), Number(b)];
    else if (command === 'm') [x, y] = [x + Number(a), y + Number(b)];
    else if (command === 'h') {
      for (let column = x; column < x + Number(a); column += 1) dark.add(`${Math.floor(y)},${column}`);
      x += Number(a);
    } else throw new Error(`unexpected path command ${command}`);
  }
  const scale = 8;
  const size = modules * scale;
  const pixels = new Uint8ClampedArray(size * size * 4).fill(255);
  for (let py = 0; py < size; py += 1) {
    for (let px = 0; px < size; px += 1) {
      if (!dark.has(`${Math.floor(py / scale)},${Math.floor(px / scale)}`)) continue;
      pixels.fill(0, (py * size + px) * 4, (py * size + px) * 4 + 3);
    }
  }
  return jsQR(pixels, size, size)?.data ?? null;
}
