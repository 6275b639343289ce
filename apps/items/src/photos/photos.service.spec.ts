import type { OutboxWriter } from '@homing/platform';
import type { PhotoStorage } from './photo-storage';
import type { PhotosRepository } from './photos.repository';
import { PhotosService } from './photos.service';

const CODE = 'ABCDEFGHJKMNPQRS';

/** An item whose photo version reads answer `versions` in turn, and whose image reads answer `images` in turn. */
function setUp(versions: Array<number | null>, images: string[]) {
  const photos = { photoVersion: jest.fn(async () => versions.shift() ?? null) };
  const storage = { get: jest.fn(async () => ({ contentType: 'image/webp', content: Buffer.from(images.shift() ?? '') })) };
  const service = new PhotosService(photos as unknown as PhotosRepository, {} as OutboxWriter, storage as unknown as PhotoStorage);
  return { service, photos, storage };
}

describe('PhotosService.getPhoto', () => {
  it('answers the image with the version read before and after it', async () => {
    const { service } = setUp([3, 3], ['third']);
    expect(await service.getPhoto(CODE, 'normal')).toEqual({ contentType: 'image/webp', base64: Buffer.from('third').toString('base64'), version: 3 });
  });

  it('reads again when an upload committed while the image was read, never pairing a version with another’s image', async () => {
    // Version 3 before, the image of 4 read, version 4 after: read again.
    const { service, storage } = setUp([3, 4, 4, 4], ['fourth', 'fourth']);
    expect(await service.getPhoto(CODE, 'thumbnail')).toMatchObject({ base64: Buffer.from('fourth').toString('base64'), version: 4 });
    expect(storage.get).toHaveBeenCalledTimes(2);
  });

  it('asks the reader to try again while uploads keep racing it, and answers 404 without a photo', async () => {
    const racing = setUp([1, 2, 2, 3, 3, 4], ['a', 'b', 'c']);
    await expect(racing.service.getPhoto(CODE, 'normal')).rejects.toMatchObject({ body: { status: 503, response_code: 'SERVICE_UNAVAILABLE' } });
    await expect(setUp([null], []).service.getPhoto(CODE, 'normal')).rejects.toMatchObject({ body: { status: 404 } });
    await expect(setUp([1], []).service.getPhoto('not a code', 'normal')).rejects.toMatchObject({ body: { status: 404 } });
  });
});
