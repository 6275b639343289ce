import { z } from 'zod';
import { itemRoleSchema } from './people';
import { photoUrlsSchema } from './photos';
import { REWARD_MAX_CENTS } from './limits';
import { multiLineText, singleLineText } from './text';

export const ITEM_NAME_MAX_LENGTH = 100;
export const LOST_NOTE_MAX_LENGTH = 280;

/** What anyone who scans a tag may learn (ARCHITECTURE §5): no e-mail, and the owner's id only to the owner. */
export const publicItemSchema = z.object({
  code: z.string(),
  name: z.string().nullable(),
  /** Integer cents (EUR); present only when rewards are enabled. */
  reward: z.number().int().optional(),
  claimed_at: z.string().nullable(),
  activated: z.boolean(),
  is_owner: z.boolean(),
  user_id: z.uuid().optional(),
  /** The item's photo, when its owner uploaded one: what a finder sees first. */
  photo: photoUrlsSchema.optional(),
  /** The owner marked it lost (lost mode): the finder page says so, with the owner's note. */
  lost: z.boolean().default(false),
  /** The owner's note to finders while the item is lost (plain text, at most 280 characters). */
  lost_note: z.string().optional(),
  /** An activated item's e-mail relay address (`tag-{code}@RELAY_DOMAIN`): a finder may write to it instead. */
  relay_address: z.string().optional(),
  /**
   * To a person of the item (`is_owner` true for the owner and every co-owner: they read and answer its thread):
   * which of the two they are. Only the owner renames, deletes, resets, invites or hands over.
   */
  role: itemRoleSchema.optional(),
  /** To a person of the item: whether others share it (co-owners, or an owner with co-owners). */
  shared: z.boolean().optional(),
});
export type PublicItem = z.infer<typeof publicItemSchema>;

/** `POST /api/v1/items` body. */
export const createItemBodySchema = z.strictObject({
  name: singleLineText(ITEM_NAME_MAX_LENGTH),
});
export type CreateItemBody = z.infer<typeof createItemBodySchema>;

/**
 * `PATCH /api/v1/user/items/{code}` body: any of name and reward. A name, when given, is required to be non-empty;
 * a positive reward is accepted only when rewards are enabled (items answers 422 otherwise; 0 is accepted, unchanged).
 */
export const updateItemBodySchema = z.strictObject({
  name: singleLineText(ITEM_NAME_MAX_LENGTH).optional(),
  /** Integer cents (EUR), 0 for none. */
  reward: z.number().int().min(0).max(REWARD_MAX_CENTS).optional(),
  /** Lost mode on or off. Off ("I have it again") also removes the note. */
  lost: z.boolean().optional(),
  /** The note finders see while the item is lost; empty removes it. Only with `lost: true` or on a lost item. */
  lost_note: multiLineText(LOST_NOTE_MAX_LENGTH, 0).optional(),
});
export type UpdateItemBody = z.infer<typeof updateItemBodySchema>;

export const OWNED_ITEMS_DEFAULT_LIMIT = 50;
export const OWNED_ITEMS_MAX_LIMIT = 100;

// Query values arrive as strings: digits only, so "1e3", "-1" and " 5" are validation errors, not numbers.
const queryInteger = z
  .string()
  .regex(/^\d{1,9}$/)
  .transform(Number);

/**
 * `GET /api/v1/user/items?limit&offset`. The spec's client sends `limit=0` for "the default"; a limit above the
 * maximum is capped rather than refused.
 */
export const ownedItemsQuerySchema = z.object({
  limit: queryInteger
    .optional()
    .transform((limit) => (limit === undefined || limit === 0 ? OWNED_ITEMS_DEFAULT_LIMIT : Math.min(limit, OWNED_ITEMS_MAX_LIMIT))),
  offset: queryInteger.optional().transform((offset) => offset ?? 0),
});
export type OwnedItemsQuery = z.infer<typeof ownedItemsQuerySchema>;

/** QR images of a tag: `GET /qr/{code}?sizeInPx=N[&b64=1]` and `GET /api/v1/items/{code}/qr/download?sizeInPx=N`. */
export const QR_SIZE_MIN_PX = 64;
export const QR_SIZE_MAX_PX = 2048;
/** The spec's web page asks for 400 px. */
export const QR_SIZE_DEFAULT_PX = 400;

export const qrQuerySchema = z.object({
  sizeInPx: queryInteger.pipe(z.number().min(QR_SIZE_MIN_PX).max(QR_SIZE_MAX_PX)).optional(),
  /** `1`: the SVG as base64 text (what the web page puts in a data: URL). */
  b64: z.enum(['0', '1']).optional(),
});
export type QrQuery = z.infer<typeof qrQuerySchema>;

/** At most this many tags are minted in one batch (one print run). */
export const TAG_BATCH_MAX_COUNT = 10_000;

/** `POST /api/v1/admin/tag-batches` body. */
export const createTagBatchBodySchema = z.strictObject({
  count: z.number().int().min(1).max(TAG_BATCH_MAX_COUNT),
  /** What the batch is for, printed on its sheets ("Stickers, March"). */
  label: singleLineText(100),
});
export type CreateTagBatchBody = z.infer<typeof createTagBatchBodySchema>;

export const tagBatchSchema = z.object({
  id: z.uuid(),
  label: z.string(),
  count: z.number().int(),
  created_at: z.string(),
  /** A4 pages of its printable sheet. */
  pages: z.number().int(),
});
export type TagBatch = z.infer<typeof tagBatchSchema>;

/** A batch as an admin sees it: how many of its tags are activated so far, and who minted it. */
export const tagBatchSummarySchema = tagBatchSchema.extend({
  claimed: z.number().int(),
  /** The e-mail of the admin who minted it (admins only see this); null when that account is gone. */
  created_by: z.string().nullable(),
});
export type TagBatchSummary = z.infer<typeof tagBatchSummarySchema>;

/** `GET /admin/tag-batches`: every batch, newest first. */
export const tagBatchListSchema = z.object({ batches: z.array(tagBatchSummarySchema) });
export type TagBatchList = z.infer<typeof tagBatchListSchema>;

/** What items knows of a batch: the summary with the minting admin's user id, which the gateway turns into an e-mail. */
export const tagBatchRecordSchema = tagBatchSchema.extend({ claimed: z.number().int(), createdBy: z.uuid().nullable() });
export type TagBatchRecord = z.infer<typeof tagBatchRecordSchema>;

/** The most codes one `items.rpc.tag-batch-codes` answer carries: 1,000 codes are about 20 KB, far below NATS' 1 MB. */
export const TAG_BATCH_CODES_PAGE = 1000;

export const tagSheetQuerySchema = z.object({
  page: queryInteger.pipe(z.number().min(1)).optional(),
});
export type TagSheetQuery = z.infer<typeof tagSheetQuerySchema>;
