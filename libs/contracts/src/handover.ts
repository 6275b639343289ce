import { z } from 'zod';

/**
 * Contact details a message may hold that the other side sees masked until both sides of the conversation agreed to
 * share them: phone numbers, IBANs, e-mail addresses and links.
 */
export const contactKindSchema = z.enum(['phone', 'iban', 'email', 'link']);
export type ContactKind = z.infer<typeof contactKindSchema>;

/** `POST /api/v1/items/{code}/contact-consent`: the finder (token) or the owner (for `conversation_id`, else the latest). */
export const contactConsentBodySchema = z.strictObject({
  agree: z.boolean(),
  conversation_id: z.uuid().optional(),
});
export type ContactConsentBody = z.infer<typeof contactConsentBodySchema>;

/** `GET /api/v1/items/{code}/conversation[?conversation_id=]`: the state of one conversation, for either side. */
export const conversationStateQuerySchema = z.object({ conversation_id: z.uuid().optional() });
export type ConversationStateQuery = z.infer<typeof conversationStateQuerySchema>;

export const conversationStateSchema = z.object({
  conversation_id: z.uuid(),
  /** Who has agreed to share contact details; each side may withdraw until both have. */
  contact_consent: z.object({ finder: z.boolean(), owner: z.boolean() }),
  /** Both agreed: every message of the conversation is shown as written, to both. */
  contact_shared: z.boolean(),
  /** When the finder handed the item over with the owner's code: no more messages (409 CONVERSATION_CLOSED). */
  closed_at: z.string().nullable(),
});
export type ConversationState = z.infer<typeof conversationStateSchema>;

/** Wrong codes a conversation may try in an hour; the next answers 429. */
export const HANDOVER_MAX_WRONG_PER_HOUR = 5;
/** Hand-over tries, right or wrong, an item takes in an hour across all its conversations; the next answers 429. */
export const HANDOVER_MAX_TRIES_PER_ITEM_PER_HOUR = 20;

/** `GET /api/v1/user/items/{code}/handover-code`. */
export const handoverCodeSchema = z.object({
  code: z.string().regex(/^\d{6}$/),
  /** When today's code stops being shown (the end of the UTC day). */
  valid_until: z.string(),
});
export type HandoverCode = z.infer<typeof handoverCodeSchema>;

/** `POST /api/v1/items/{code}/handover` (the finder, with their token): the code the person in front of them told. */
export const handoverBodySchema = z.strictObject({ code: z.string().max(32) });
export type HandoverBody = z.infer<typeof handoverBodySchema>;

/** The case is closed: when, and the reward now due (only while rewards are enabled and one was set). */
export const handoverResultSchema = z.object({
  closed_at: z.string(),
  reward: z.number().int().optional(),
});
export type HandoverResult = z.infer<typeof handoverResultSchema>;
