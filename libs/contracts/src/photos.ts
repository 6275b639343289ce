import { z } from 'zod';
import { formatTagCode } from './tag-code';

/** Product spec §9: an item photo is kept as a 100 px thumbnail and a 400 px normal size. */
export const PHOTO_SIZES = { thumbnail: 100, normal: 400 } as const;
export type PhotoSize = keyof typeof PHOTO_SIZES;
export const photoSizeSchema = z.enum(['thumbnail', 'normal']);

/** Uploads larger than this are refused (413) before any decoding. */
export const PHOTO_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Where a photo is served. The version changes with every upload, so a browser may keep a URL's image for good and
 * still sees a new photo at once.
 */
export function photoUrl(code: string, size: PhotoSize, version: number): string {
  return `/api/v1/items/${formatTagCode(code)}/photo/${size}?v=${version}`;
}

export const photoUrlsSchema = z.object({ thumbnail: z.string(), normal: z.string() });
export type PhotoUrls = z.infer<typeof photoUrlsSchema>;

/** Both sizes' URLs of an item's photo at a version. */
export function photoUrls(code: string, version: number): PhotoUrls {
  return { thumbnail: photoUrl(code, 'thumbnail', version), normal: photoUrl(code, 'normal', version) };
}

/** One stored rendition, as it travels over NATS (base64: NATS messages are text-safe and small at these sizes). */
export const storedPhotoSchema = z.object({ contentType: z.string(), base64: z.string(), version: z.number().int() });
export type StoredPhoto = z.infer<typeof storedPhotoSchema>;
