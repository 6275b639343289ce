import { Injectable } from '@nestjs/common';
import { formatTagCode, parseTagCode, QR_SIZE_DEFAULT_PX } from '@homing/contracts';
import type { TaggedBody } from '../http/etag';
import { PrebuiltAnswer } from '../http/prebuilt-answer';
import { PublicItemsService } from '../items/public-items.service';
import { QrImages, type QrImage } from './qr-images';

// A week: the image of a code never changes while PUBLIC_URL stays, but not `immutable`: a deleted tag's image should
// go the way of the tag on the next reload, and a move to another PUBLIC_URL must reach browsers. Revalidating costs
// one 304 (ETag).
const PUBLIC_CACHE = 'public, max-age=604800';
const SVG_HEADERS = Object.freeze({ 'cache-control': PUBLIC_CACHE, 'content-type': 'image/svg+xml; charset=utf-8' });
const BASE64_HEADERS = Object.freeze({ 'cache-control': PUBLIC_CACHE, 'content-type': 'text/plain; charset=utf-8' });

// Large enough to print sharply on a tag or a sticker.
export const QR_SIZE_DOWNLOAD_DEFAULT_PX = 1024;

/** QR images of tags, rendered here once the code is known to exist (no images of made-up codes). */
@Injectable()
export class QrService {
  // Each rendered image's answer, made at its first request and gone with the image from the render cache.
  private readonly answers = new WeakMap<QrImage, PrebuiltAnswer>();

  constructor(
    private readonly images: QrImages,
    private readonly publicItems: PublicItemsService,
  ) {}

  /**
   * The public image of a tag. It tells whether a code exists as well as a scan does, so it is looked up as a scan
   * (the same unknown-code limit, from the scan cache when the tag was scanned lately).
   */
  async publicImage(input: string, sizeInPx: number | undefined, base64: boolean): Promise<TaggedBody> {
    const item = await this.publicItems.scan(input, null);
    const image = await this.images.render(parseTagCode(item.code) as string, base64 ? 'svg-base64' : 'svg', sizeInPx ?? QR_SIZE_DEFAULT_PX);
    return { ...image, headers: base64 ? BASE64_HEADERS : SVG_HEADERS };
  }

  /**
   * The public image's answer without waiting, when this gateway knows the code from a scan and has rendered the image
   * already (undefined otherwise): the hot path of the QR route (B6).
   */
  knownPublicImage(input: string, sizeInPx: number | undefined, base64: boolean): PrebuiltAnswer | undefined {
    const code = parseTagCode(input);
    if (code === null || this.publicItems.knownItem(code) === undefined) return undefined;
    const image = this.images.rendered(code, base64 ? 'svg-base64' : 'svg', sizeInPx ?? QR_SIZE_DEFAULT_PX);
    if (!image) return undefined;
    let answer = this.answers.get(image);
    if (!answer) {
      // `/qr/{code}` is outside the API's prefix (its caching is its own either way).
      answer = new PrebuiltAnswer(image.etag, base64 ? BASE64_HEADERS : SVG_HEADERS, image.body, false);
      this.answers.set(image, answer);
    }
    return answer;
  }

  /**
   * A PNG to print. The same rule as the public image: anyone holding a code that exists, looked up as a scan (the
   * image is a pure function of the code, so refusing it to anyone who may have the SVG would protect nothing).
   */
  async download(input: string, sizeInPx: number | undefined): Promise<TaggedBody> {
    const item = await this.publicItems.scan(input, null);
    const code = parseTagCode(item.code) as string;
    const image = await this.images.render(code, 'png', sizeInPx ?? QR_SIZE_DOWNLOAD_DEFAULT_PX);
    return {
      ...image,
      headers: { 'cache-control': PUBLIC_CACHE, 'content-type': 'image/png', 'content-disposition': `attachment; filename="homing-${formatTagCode(code)}.png"` },
    };
  }
}
