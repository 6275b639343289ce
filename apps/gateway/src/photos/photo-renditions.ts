import type Sharp from 'sharp';
import { PHOTO_SIZES } from '@homing/contracts';

/** The upload is not a photo we take: not an image, not JPEG, PNG or WebP, or too large once decoded. */
export class UnusableImageError extends Error {}

export const ACCEPTED_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp']);

// A decompression bomb is a small file that decodes to a huge bitmap; 40 megapixels is well above any phone photo.
export const MAX_INPUT_PIXELS = 40_000_000;

// Loaded with the first photo rather than at start-up: libvips is about 20 MB of the gateway's memory and 60 ms of its
// start (B8), for a route most replicas seldom serve.
let sharpLoaded: Promise<typeof Sharp> | undefined;
const loadSharp = () => (sharpLoaded ??= import('sharp').then((module) => module.default));

/**
 * The photo as Homing keeps it: decoded (so only a real image passes), turned upright from its EXIF orientation,
 * scaled to the spec's sizes (a square 100 px thumbnail, at most 400 px for the normal size, never enlarged) and
 * re-encoded as WebP. sharp writes no metadata unless asked, so EXIF, GPS positions and comments are gone.
 */
export async function photoRenditionsOf(input: Buffer): Promise<{ thumbnail: Buffer; normal: Buffer }> {
  const sharp = await loadSharp();
  const decoder = () => sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', sequentialRead: true });
  let format: string | undefined;
  let pixels = 0;
  try {
    const metadata = await decoder().metadata();
    format = metadata.format;
    pixels = (metadata.width ?? 0) * (metadata.height ?? 0);
  } catch (error) {
    // sharp checks the pixel limit against the header, before decoding anything.
    if (/pixel limit/i.test((error as Error).message)) throw new UnusableImageError('The photo is too large.');
    throw new UnusableImageError('The file is not an image.');
  }
  if (!format || !ACCEPTED_FORMATS.has(format)) throw new UnusableImageError('Send a JPEG, PNG or WebP photo.');
  // Read from the header: refused before a single pixel is decoded.
  if (pixels > MAX_INPUT_PIXELS) throw new UnusableImageError('The photo is too large.');
  try {
    const [thumbnail, normal] = await Promise.all([
      decoder().rotate().resize(PHOTO_SIZES.thumbnail, PHOTO_SIZES.thumbnail, { fit: 'cover' }).webp({ quality: 75 }).toBuffer(),
      decoder().rotate().resize(PHOTO_SIZES.normal, PHOTO_SIZES.normal, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer(),
    ]);
    return { thumbnail, normal };
  } catch {
    throw new UnusableImageError('The photo could not be read.');
  }
}
