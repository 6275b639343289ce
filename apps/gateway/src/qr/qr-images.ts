import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PNG } from 'pngjs';
import { foundPageUrl, QR_SIZE_DEFAULT_PX } from '@homing/contracts';
import { InjectConfig } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { RecentlyUsedMap } from '../caching/recently-used-map';
import { encodeModules, QUIET_ZONE_MODULES, renderSvgFast } from './fast-qr';

export type QrFormat = 'svg' | 'svg-base64' | 'png';

/** A rendered QR image and its validator. */
export interface QrImage {
  body: Buffer;
  /** Strong ETag: a hash of the body, the same on every replica (rendering is deterministic). */
  etag: string;
}

// About 600 renders at the largest PNG size, thousands of typical ones.
const CACHE_MAX_BYTES = 24 * 1024 * 1024;

/**
 * A PNG of the symbol: a whole number of pixels per module (crisp edges that every decoder reads), centred on white
 * in a `sizePx` square, 8-bit grayscale without filters. Rasterised here rather than by qrcode's PNG renderer, which
 * costs about 0.5 s of the event loop at 2048 px against 20 ms this way.
 */
export function renderPng(text: string, sizePx: number): Buffer {
  const { size: symbolSize, modules } = encodeModules(text);
  const symbolModules = symbolSize + 2 * QUIET_ZONE_MODULES;
  // A long PUBLIC_URL could need more modules than pixels at the smallest size: then the image grows to fit.
  const size = Math.max(sizePx, symbolModules);
  const scale = Math.floor(size / symbolModules);
  const origin = Math.floor((size - scale * symbolSize) / 2);
  const pixels = Buffer.alloc(size * size, 255);
  const row = Buffer.alloc(size);
  for (let moduleRow = 0; moduleRow < symbolSize; moduleRow += 1) {
    row.fill(255);
    for (let column = 0; column < symbolSize; column += 1) {
      if (modules[moduleRow * symbolSize + column]) row.fill(0, origin + column * scale, origin + (column + 1) * scale);
    }
    for (let line = 0; line < scale; line += 1) row.copy(pixels, (origin + moduleRow * scale + line) * size);
  }
  return PNG.sync.write({ width: size, height: size, data: pixels } as PNG, { colorType: 0, inputColorType: 0, bitDepth: 8, filterType: 0 });
}

/** An SVG of the symbol, `sizePx` wide and high (a vector: it scales to any size cleanly). */
export function renderSvg(text: string, sizePx: number): string {
  // The same string as QRCode.toString(text, { type: 'svg', width: sizePx, margin: 4, errorCorrectionLevel: 'M' }),
  // for well under half its CPU (fast-qr.ts: segments and the mask chosen over flat arrays; B6).
  return renderSvgFast(text, sizePx);
}

/** Renders not used lately go first once the bodies pass `maxBytes` (RecentlyUsedMap's CLOCK rule). */
export class RenderCache {
  private readonly entries = new RecentlyUsedMap<string, QrImage>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): QrImage | undefined {
    return this.entries.get(key);
  }

  set(key: string, image: QrImage): void {
    this.delete(key);
    this.entries.set(key, image);
    this.bytes += image.body.length;
    while (this.bytes > this.maxBytes) {
      const dropped = this.entries.dropNext();
      if (!dropped) break;
      this.bytes -= dropped[1].body.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const image = this.entries.peek(key);
    if (!image) return;
    this.entries.delete(key);
    this.bytes -= image.body.length;
  }
}

/**
 * QR images of tags, rendered by the gateway: a pure function of `PUBLIC_URL`, the code and the size, so each replica
 * caches its own renders in memory (no shared state to keep right). Callers check that the code exists first.
 */
@Injectable()
export class QrImages {
  private readonly cache = new RenderCache(CACHE_MAX_BYTES);

  constructor(@InjectConfig() private readonly config: Pick<GatewayConfig, 'PUBLIC_URL'>) {}

  async render(canonicalCode: string, format: QrFormat, sizePx: number): Promise<QrImage> {
    const key = renderKey(canonicalCode, format, sizePx);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const url = foundPageUrl(this.config.PUBLIC_URL, canonicalCode);
    const body = format === 'png' ? renderPng(url, sizePx) : Buffer.from(renderSvg(url, sizePx));
    const image = withEtag(format === 'svg-base64' ? Buffer.from(body.toString('base64')) : body);
    this.cache.set(key, image);
    return image;
  }

  /** The image if this replica rendered it lately. */
  rendered(canonicalCode: string, format: QrFormat, sizePx: number): QrImage | undefined {
    return this.cache.get(renderKey(canonicalCode, format, sizePx));
  }
}

/**
 * The cache's key of an image. The image most asked for (the SVG at the default size) is keyed by the code alone: the
 * scan cache has just looked that string up, so its hash is known, where a key built per request is a new string to
 * hash (B6). Every other key holds a colon, which no code does.
 */
function renderKey(canonicalCode: string, format: QrFormat, sizePx: number): string {
  return format === 'svg' && sizePx === QR_SIZE_DEFAULT_PX ? canonicalCode : `${format}:${sizePx}:${canonicalCode}`;
}

function withEtag(body: Buffer): QrImage {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
}
