import { Injectable } from '@nestjs/common';
import { photoSizeSchema, ResponseCode, type PhotoUrls } from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import type { TaggedBody } from '../http/etag';
import { ApiError } from '../http/http-error';
import { PublicItemCache } from '../items/public-item-cache';
import { PublicItemsService } from '../items/public-items.service';
import { photoRenditionsOf, UnusableImageError } from './photo-renditions';

/** An item's photo: uploaded by its owner, shown to whoever scans the tag. */
@Injectable()
export class PhotosService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly publicItems: PublicItemCache,
    private readonly scans: PublicItemsService,
  ) {}

  /** Items keeps the two renditions made here (a 5 MB upload would not fit a NATS message). */
  async upload(ownerUserId: string, code: string, file: Buffer): Promise<PhotoUrls> {
    let renditions;
    try {
      renditions = await photoRenditionsOf(file);
    } catch (error) {
      if (error instanceof UnusableImageError) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, error.message, { file: 'invalid' });
      throw error;
    }
    return this.publicItems.changing(
      code,
      this.rpc.request('items.rpc.set-photo', {
        code,
        ownerUserId,
        contentType: 'image/webp',
        thumbnail: renditions.thumbnail.toString('base64'),
        normal: renditions.normal.toString('base64'),
      }),
    );
  }

  /** One rendition; `version` is the `v` of the URL the item carries. */
  async photo(code: string, size: string, version: unknown): Promise<TaggedBody> {
    const parsedSize = photoSizeSchema.safeParse(size);
    if (!parsedSize.success) throw new ApiError(404, ResponseCode.NOT_FOUND, 'No photo here.');
    // Looked up as a scan first (from the scan cache when the tag was scanned lately), as the QR image is: an unknown
    // code is the scan's 404, counted against the address's unknown-code limit (without it, this route answered any
    // number of guesses, and told a code with a photo from one without).
    await this.scans.scan(code, null);
    const photo = await this.rpc.request('items.rpc.get-photo', { code, size: parsedSize.data });
    // The versioned URL never changes its image: cache it for good. Without the current version, only briefly. Private
    // either way: a photo is personal data, gone when the item is deleted or the photo replaced, which a shared cache
    // (a CDN, a company proxy) would not know; the viewer's own browser has seen it anyway.
    const cacheControl = String(version) === String(photo.version) ? 'private, max-age=31536000, immutable' : 'private, max-age=60';
    return {
      body: Buffer.from(photo.base64, 'base64'),
      // A version's rendition never changes: the version and size name it.
      etag: `"${photo.version}-${parsedSize.data}"`,
      headers: { 'content-type': photo.contentType, 'cache-control': cacheControl },
    };
  }
}
