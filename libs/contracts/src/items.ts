import { z } from 'zod';
import { singleLineText } from './text';

export const ITEM_NAME_MAX_LENGTH = 100;

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
});
export type PublicItem = z.infer<typeof publicItemSchema>;

/** `POST /api/v1/items` body. */
export const createItemBodySchema = z.strictObject({
  name: singleLineText(ITEM_NAME_MAX_LENGTH),
});
export type CreateItemBody = z.infer<typeof createItemBodySchema>;
