import { z } from 'zod';
import { contactKindSchema } from './handover';
import { sharedLocationSchema } from './scans';
import { emailSchema } from './identity';
import { multiLineText } from './text';
import { MESSAGE_MAX_LENGTH } from './limits';

/** At most this many codes in one `GET /user/found-items?codes=…` (a page of the owner's items and then some). */
export const FOUND_ITEMS_MAX_CODES = 100;

/**
 * The header a finder's browser sends back with every call about the item it wrote about (ARCHITECTURE §8).
 * A secret: the gateway's logger redacts it.
 */
export const FINDER_TOKEN_HEADER = 'x-finder-token';

/** A finder token as issued: 128 random bits, base64url without padding. */
export const finderTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{22}$/);

/** `POST /api/v1/items/{code}/set-finder` body: the finder's address, to relay the owner's replies. */
export const setFinderBodySchema = z.strictObject({ email: emailSchema });
export type SetFinderBody = z.infer<typeof setFinderBodySchema>;

/**
 * A resume link's token (`/found/{code}?resume=<token>`): 128 random bits, base64url, as a finder token, but a different
 * purpose: it is only ever exchanged for a finder token, never accepted as one.
 */
export const resumeTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{22}$/);

/** `POST /api/v1/items/{code}/finder-resume` body: the token of a resume link from a finder's e-mail. */
export const finderResumeBodySchema = z.strictObject({ token: z.string().max(200) });
export type FinderResumeBody = z.infer<typeof finderResumeBodySchema>;

/** `POST /api/v1/items/{code}/resume-link` body: the address a finder wrote with, to e-mail them a resume link. */
export const resumeLinkBodySchema = z.strictObject({ email: emailSchema });
export type ResumeLinkBody = z.infer<typeof resumeLinkBodySchema>;

/** A resume link stops working after this long without a message in its conversation. */
export const RESUME_LINK_IDLE_DAYS = 30;

/** `POST /api/v1/items/{code}/set-finder` answer: the token of the finder's conversation. */
export const finderTokenResponseSchema = z.object({ finder_token: z.string() });
export type FinderTokenResponse = z.infer<typeof finderTokenResponseSchema>;

/** `POST /api/v1/items/{code}/messages` body. The owner may name the conversation they answer (else the latest). */
export const createMessageBodySchema = z.strictObject({
  content: multiLineText(MESSAGE_MAX_LENGTH),
  conversation_id: z.uuid().optional(),
});
export type CreateMessageBody = z.infer<typeof createMessageBodySchema>;

export const messageAuthorSchema = z.enum(['finder', 'owner']);
export type MessageAuthor = z.infer<typeof messageAuthorSchema>;

/** One message of a thread, as its owner or its finder sees it. */
export const messageSchema = z.object({
  /** Rises with every message: the `after=` of the next poll. */
  id: z.number().int(),
  conversation_id: z.uuid(),
  author: messageAuthorSchema,
  content: z.string(),
  created_at: z.string(),
  /** A finder's message: whether the owner has read it. An owner's message: always true (the spec's field; see `read_at`). */
  is_read: z.boolean(),
  /** When notifications told the other side of it (push or e-mail); null until then. */
  delivered_at: z.string().nullable(),
  /** When the other side opened the thread with it (the owner for a finder's message, the finder for a reply); null until then. */
  read_at: z.string().nullable(),
  /** Rises with the message and with every change of its receipts: the `after=` of the next poll is the highest seen. */
  version: z.number().int(),
  /** Which finder ("Finder 2"), only to the owner and only when the item has more than one conversation. */
  finder: z.string().optional(),
  /** A place the finder shared (`POST /items/{code}/location`); such an entry's `content` is empty. */
  location: sharedLocationSchema.optional(),
  /**
   * The kinds of contact details masked in `content` for this reader (the other side of the writer), until both
   * sides agreed to share them; absent when nothing is masked.
   */
  masked: z.array(contactKindSchema).optional(),
});
export type Message = z.infer<typeof messageSchema>;

/** `POST /api/v1/items/{code}/messages` answer; a first message also carries the finder's new token. */
export const createMessageResponseSchema = z.object({
  message: messageSchema,
  finder_token: z.string().optional(),
});
export type CreateMessageResponse = z.infer<typeof createMessageResponseSchema>;

/** `GET /api/v1/items/{code}/messages?after=<id>`. */
export const messagesQuerySchema = z.object({
  after: z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number)
    .optional(),
});
export type MessagesQuery = z.infer<typeof messagesQuerySchema>;

/** Who may read an item's thread (messaging's answer to the gateway): the owner, or the finder of one conversation. */
export const threadAccessSchema = z.object({
  /** The item's code as stored (`parseTagCode`), as events name it. */
  itemCode: z.string(),
  /** The finder's conversation; null for the owner, who reads every conversation. */
  conversationId: z.uuid().nullable(),
  /** The newest message id of the item's thread (0 when there is none): where a stream starts. */
  latestMessageId: z.number().int().min(0),
});
export type ThreadAccess = z.infer<typeof threadAccessSchema>;

/**
 * `GET /api/v1/items/{code}/finder-details`: whether replies can reach the latest finder. Never the address.
 * `finder_left` (present only when true): that finder deleted their conversation, so it takes no more replies.
 */
export const finderDetailsSchema = z.object({ finder_known: z.boolean(), finder_left: z.literal(true).optional() });
export type FinderDetails = z.infer<typeof finderDetailsSchema>;

/** `GET /api/v1/items/{code}/finder-details?conversation_id=<uuid>`: the finder the owner replies to; the latest without it. */
export const finderDetailsQuerySchema = z.object({ conversation_id: z.uuid().optional() });
export type FinderDetailsQuery = z.infer<typeof finderDetailsQuerySchema>;

/** `GET /api/v1/user/found-items?codes=a,b`: comma-separated codes as the client shows them. */
export const foundItemsQuerySchema = z.object({
  codes: z
    .string()
    .max(FOUND_ITEMS_MAX_CODES * 20)
    .transform((codes) => codes.split(',').filter((code) => code.length > 0))
    .pipe(z.array(z.string().max(64)).max(FOUND_ITEMS_MAX_CODES)),
});
export type FoundItemsQuery = z.infer<typeof foundItemsQuerySchema>;

/** Code (as asked) → whether a finder has written about it. */
export const foundItemsSchema = z.record(z.string(), z.boolean());
export type FoundItems = z.infer<typeof foundItemsSchema>;
