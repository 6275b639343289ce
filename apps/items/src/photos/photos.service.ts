import { Inject, Injectable } from '@nestjs/common';
import { parseTagCode, photoUrls, ResponseCode, type PhotoSize, type PhotoUrls, type StoredPhoto } from '@homing/contracts';
import { OutboxWriter, RpcError } from '@homing/platform';
import { PHOTO_STORAGE, type PhotoStorage } from './photo-storage';
import { PhotosRepository } from './photos.repository';

const NOT_FOUND = () => RpcError.notFound(ResponseCode.NOT_FOUND, 'No photo here.');
// Uploads racing one read again and again: after this many, the reader is told to try again.
const PHOTO_READ_ATTEMPTS = 3;

@Injectable()
export class PhotosService {
  constructor(
    private readonly photos: PhotosRepository,
    private readonly outbox: OutboxWriter,
    @Inject(PHOTO_STORAGE) private readonly storage: PhotoStorage,
  ) {}

  /** Stores the owner's new photo; anyone else (and an unknown code) gets the 404 of a missing item. */
  async setPhoto(input: string, ownerUserId: string, renditions: { contentType: string; thumbnail: string; normal: string }): Promise<PhotoUrls> {
    const code = parseTagCode(input);
    if (!code) throw RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
    const version = await this.photos.transaction(async (manager) => {
      const next = await this.photos.nextPhotoVersion(manager, code, ownerUserId);
      if (next === null) return null;
      // Gateways keep scanned items' public fields, photo URLs included, until an event says they changed.
      await this.outbox.record(manager, 'items.item.photo-changed.v1', { code, photoVersion: next.photoVersion }, { aggregateId: code, version: next.version });
      await this.storage.put(
        code,
        {
          thumbnail: { contentType: renditions.contentType, content: Buffer.from(renditions.thumbnail, 'base64') },
          normal: { contentType: renditions.contentType, content: Buffer.from(renditions.normal, 'base64') },
        },
        manager,
      );
      return next.photoVersion;
    });
    if (version === null) throw RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
    return photoUrls(code, version);
  }

  /**
   * A rendition of an item's photo, with the version it is of: public, like the finder page that shows it. The version
   * is read before and after the image: the same both times, no upload committed in between, so the image is that
   * version's (read side by side, an upload could pair one version with the other's image, and a versioned URL is
   * cached for good).
   */
  async getPhoto(input: string, size: PhotoSize): Promise<StoredPhoto> {
    const code = parseTagCode(input);
    if (!code) throw NOT_FOUND();
    for (let attempt = 0; attempt < PHOTO_READ_ATTEMPTS; attempt += 1) {
      const version = await this.photos.photoVersion(code);
      if (version === null) throw NOT_FOUND();
      const rendition = await this.storage.get(code, size);
      if (!rendition) throw NOT_FOUND();
      if ((await this.photos.photoVersion(code)) === version) return { contentType: rendition.contentType, base64: rendition.content.toString('base64'), version };
    }
    throw new RpcError({ status: 503, response_code: ResponseCode.SERVICE_UNAVAILABLE, message: 'The photo is being replaced. Try again.' });
  }
}
