import type { PhotoSize } from '@homing/contracts';

export const PHOTO_STORAGE = Symbol('PHOTO_STORAGE');

export interface PhotoRendition {
  contentType: string;
  content: Buffer;
}

/**
 * Where photo renditions live. PostgreSQL here (photos are small once re-encoded); an S3-compatible store can
 * implement the same two calls (and drop an item's photos when it is deleted, which PostgreSQL does by cascade).
 * Ownership and the item's photo version are the service's concern, not the store's.
 */
export interface PhotoStorage {
  /** Replaces every rendition of the item's photo. `transaction` is the caller's, when the store can join it. */
  put(itemCode: string, renditions: Record<PhotoSize, PhotoRendition>, transaction?: unknown): Promise<void>;
  get(itemCode: string, size: PhotoSize): Promise<PhotoRendition | null>;
}
