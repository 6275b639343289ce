import sharp from 'sharp';
import { decompressionBombPng } from '@homing/testing';
import { photoRenditionsOf } from './photo-renditions';

// Unit tier: sharp works in memory, no I/O.
describe('photoRenditionsOf', () => {
  it('refuses a bitmap larger than a phone photo from its header, before decoding it', async () => {
    await expect(photoRenditionsOf(await decompressionBombPng())).rejects.toThrow('too large');
  });

  it('turns a sideways photo upright and drops its metadata', async () => {
    const sideways = await sharp({ create: { width: 800, height: 400, channels: 3, background: 'blue' } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const { normal, thumbnail } = await photoRenditionsOf(sideways);
    const metadata = await sharp(normal).metadata();
    expect({ width: metadata.width, height: metadata.height, format: metadata.format, exif: metadata.exif }).toEqual({ width: 200, height: 400, format: 'webp', exif: undefined });
    expect((await sharp(thumbnail).metadata()).width).toBe(100);
  });

  it('refuses what is not a JPEG, PNG or WebP image', async () => {
    await expect(photoRenditionsOf(Buffer.from('%PDF-1.4 not a photo'))).rejects.toThrow('not an image');
    const gif = await sharp({ create: { width: 4, height: 4, channels: 3, background: 'red' } }).gif().toBuffer();
    await expect(photoRenditionsOf(gif)).rejects.toThrow('JPEG, PNG or WebP');
  });
});

