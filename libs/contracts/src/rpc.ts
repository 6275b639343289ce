import { z } from 'zod';
import { deviceKindSchema, scanHistorySchema, shareLocationBodySchema } from './scans';
import { contactKindSchema, conversationStateSchema, handoverCodeSchema } from './handover';
import {
  passkeyAuthenticationResponseSchema,
  passkeyCreationOptionsSchema,
  passkeyListSchema,
  passkeyRegistrationResponseSchema,
  passkeyRenameBodySchema,
  passkeyRequestOptionsSchema,
  passkeySchema,
} from './passkeys';
import { invitationKindSchema, itemNotificationSettingsSchema, itemRoleSchema } from './people';
import {
  accessTokenSchema,
  emailBodySchema,
  emailSchema,
  loginBodySchema,
  loginCodeBodySchema,
  loginCodeInputSchema,
  passwordSchema,
  registerBodySchema,
  setPasswordBodySchema,
  tokenResponseSchema,
  userLanguageSchema,
  userSchema,
} from './identity';
import { claimBodySchema, claimResponseSchema } from './claims';
import { MESSAGE_MAX_LENGTH } from './limits';
import { identityExportSchema, itemsExportSchema, messagingExportSchema, notificationsExportSchema } from './export';
import {
  createMessageBodySchema,
  createMessageResponseSchema,
  FOUND_ITEMS_MAX_CODES,
  finderDetailsSchema,
  finderTokenResponseSchema,
  finderTokenSchema,
  messageSchema,
  threadAccessSchema,
} from './conversations';
import { pushEndpointSchema, pushReregisterBodySchema, pushSubscriberSchema, pushSubscriptionSchema, vapidPublicKeySchema } from './push';
import { relayRecipientSchema } from './relay';
import { multiLineText } from './text';
import { photoSizeSchema, photoUrlsSchema, storedPhotoSchema } from './photos';
import { createItemBodySchema, createTagBatchBodySchema, OWNED_ITEMS_MAX_LIMIT, publicItemSchema, TAG_BATCH_CODES_PAGE, tagBatchRecordSchema, tagBatchSchema, updateItemBodySchema } from './items';

const nothing = z.object({});

/**
 * An `Idempotency-Key` a client sends with a state-changing request: 1–128 letters, digits, `.`, `_`, `:` or `-`
 * (a UUID fits). A retry with the same key within 24 h gets the first answer instead of doing the work again.
 */
export const idempotencyKeySchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/);

/**
 * Request/reply subjects `<service>.rpc.<verb>`, each with its request and response schema.
 * The server validates requests against these before a handler runs.
 */
/**
 * A message as `messages-after` hands it to the gateway's streams, labelled and shown as its writer wrote it, with
 * what the other side of the writer sees instead while contact details are masked (`other_side`). The gateway sends
 * each stream reader one of the two and never `other_side` itself.
 */
export const threadMessageSchema = messageSchema.extend({
  other_side: z.object({ content: z.string(), masked: z.array(contactKindSchema) }).optional(),
});
export type ThreadMessage = z.infer<typeof threadMessageSchema>;

/**
 * An item's public fields as anyone but its owner sees them, with its owner's id (null while unclaimed): what the
 * gateway keeps for tag scans and answers every viewer from. The owner's id never leaves the gateway but to the owner.
 * Co-owners read the item as its owner does: the gateway's scan cache tells them apart by their ids.
 */
const publicItemRecordSchema = z.object({ item: publicItemSchema, ownerUserId: z.uuid().nullable(), coOwnerUserIds: z.array(z.uuid()).default([]) });

/** The most codes one `items.rpc.get-public-many` asks about. */
export const PUBLIC_ITEMS_BATCH_MAX = 100;

export const RpcMap = {
  /** One tag's public record: what gateways of the previous release ask per scan (kept while they may still run). */
  'items.rpc.get-public': {
    request: z.object({ code: z.string() }),
    response: publicItemRecordSchema,
  },
  /**
   * Several tags' public records, in the order asked, null for a code that is unknown or malformed: the gateway asks
   * once for all the scans that missed its memory in one turn of its event loop.
   */
  'items.rpc.get-public-many': {
    request: z.object({ codes: z.array(z.string().max(64)).min(1).max(PUBLIC_ITEMS_BATCH_MAX) }),
    response: z.array(publicItemRecordSchema.nullable()),
  },
  'items.rpc.create': {
    request: createItemBodySchema.extend({ ownerUserId: z.uuid(), idempotencyKey: idempotencyKeySchema.optional() }),
    response: publicItemSchema,
  },
  /** The owner's items, newest claim first (then by code): a stable order for paging. */
  'items.rpc.list-owned': {
    request: z.object({ ownerUserId: z.uuid(), limit: z.number().int().min(1).max(OWNED_ITEMS_MAX_LIMIT), offset: z.number().int().min(0) }),
    response: z.array(publicItemSchema),
  },
  /** One of the owner's items; another person's item is the same 404 ITEM_NOT_FOUND as a missing one. */
  'items.rpc.get-owned': {
    request: z.object({ code: z.string(), ownerUserId: z.uuid() }),
    response: publicItemSchema,
  },
  /** Renames an item and/or sets its reward (422 on a reward while rewards are disabled); owner only, else 404. */
  'items.rpc.update': {
    request: updateItemBodySchema.extend({ code: z.string(), ownerUserId: z.uuid() }),
    response: publicItemSchema,
  },
  /** Deletes an item (the tag stops working); owner only, else 404. */
  'items.rpc.delete': {
    request: z.object({ code: z.string(), ownerUserId: z.uuid() }),
    response: nothing,
  },
  /** Mints a batch of unclaimed tags (admins only: the gateway checks); a retry with the same key gets the first batch. */
  'items.rpc.create-tag-batch': {
    request: createTagBatchBodySchema.extend({ createdBy: z.uuid(), idempotencyKey: idempotencyKeySchema.optional() }),
    response: tagBatchSchema,
  },
  /** One A4 page of a batch's printable sheet, as SVG; 404 for an unknown batch or a page past the last. */
  'items.rpc.tag-batch-sheet': {
    request: z.object({ batchId: z.string(), page: z.number().int().min(1) }),
    response: z.object({ svg: z.string(), page: z.number().int(), pages: z.number().int() }),
  },
  /** Every batch, newest first, with its claimed count (admins only: the gateway checks). */
  'items.rpc.list-tag-batches': {
    request: z.object({}),
    response: z.object({ batches: z.array(tagBatchRecordSchema) }),
  },
  /** One batch with its claimed count; 404 for an unknown batch. */
  'items.rpc.get-tag-batch': {
    request: z.object({ batchId: z.string() }),
    response: tagBatchRecordSchema,
  },
  /**
   * A page of a batch's codes in code order, after `after` (exclusive): the gateway streams a batch's PDF and CSV a
   * page at a time, so no answer comes near NATS' message limit whatever the batch's size. 404 for an unknown batch.
   */
  'items.rpc.tag-batch-codes': {
    request: z.object({ batchId: z.string(), after: z.string().max(16).optional(), limit: z.number().int().min(1).max(TAG_BATCH_CODES_PAGE) }),
    response: z.object({ codes: z.array(z.string()) }),
  },

  /** Activates an unclaimed tag for the user with this address, created if new (identity.rpc.ensure-user). */
  'items.rpc.claim': {
    request: z.object({ code: claimBodySchema.shape.code, email: emailSchema, language: userLanguageSchema }),
    response: claimResponseSchema,
  },

  /** Stores an item's photo (renditions made by the gateway: decoded, re-encoded, metadata stripped); owner only. */
  'items.rpc.set-photo': {
    request: z.object({
      code: z.string().min(1).max(64),
      ownerUserId: z.uuid(),
      contentType: z.literal('image/webp'),
      // 400 px WebP renditions are tens of kilobytes; the cap keeps a message well inside NATS's 1 MB.
      thumbnail: z.string().min(1).max(200_000),
      normal: z.string().min(1).max(600_000),
    }),
    response: photoUrlsSchema,
  },
  // People of an item (co-owners, transfers). `userId` is the caller; a person who is not of the item gets 404.
  /** Owner only (a co-owner 403): invites an address to share the item, or to take it over (`kind: transfer`). */
  'items.rpc.invite': {
    request: z.object({ code: z.string(), userId: z.uuid(), email: emailSchema, kind: invitationKindSchema }),
    response: z.object({ invitationId: z.uuid(), expiresAt: z.string() }),
  },
  /** The people of the item and its open invitations (owner and co-owners); e-mails are the gateway's to add. */
  'items.rpc.list-people': {
    request: z.object({ code: z.string(), userId: z.uuid() }),
    response: z.object({
      people: z.array(z.object({ userId: z.uuid(), role: itemRoleSchema, addedAt: z.string() })),
      invitations: z.array(z.object({ id: z.uuid(), email: z.string(), kind: invitationKindSchema, expiresAt: z.string() })),
    }),
  },
  /** The owner removes a co-owner (or cancels an open invitation by its id); a co-owner removes themselves (leaves). */
  'items.rpc.remove-person': {
    request: z.object({ code: z.string(), userId: z.uuid(), personId: z.uuid() }),
    response: nothing,
  },
  /** What an invitation's link offers (422 INVITATION_EXPIRED once unknown, used, cancelled or past its days). */
  'items.rpc.get-invitation': {
    request: z.object({ token: z.string().max(64) }),
    response: z.object({ kind: invitationKindSchema, itemName: z.string().nullable(), email: z.string(), expiresAt: z.string() }),
  },
  /**
   * Accepts an invitation: for the logged-in `userId`, or, without one, for the account of the invited address (made
   * the way activation makes one: the answer then carries its set-password and login tokens, as activation's does).
   */
  'items.rpc.accept-invitation': {
    request: z.object({ token: z.string().max(64), userId: z.uuid().nullable(), language: userLanguageSchema.optional() }),
    response: z.object({ code: z.string(), userId: z.uuid(), claim: claimResponseSchema }),
  },
  /** Records one scan of a tag's finder page (404 for an unknown code); a lost item's also publishes `items.item.scanned.v1`. */
  'items.rpc.record-scan': {
    request: z.object({ code: z.string().min(1).max(64), city: z.string().max(200).nullable(), country: z.string().length(2).nullable(), deviceKind: deviceKindSchema }),
    response: z.object({ scanId: z.uuid(), lost: z.boolean() }),
  },
  /** The item's scan history for its owner or a co-owner: the last SCAN_HISTORY_DAYS days, at most SCAN_HISTORY_MAX, newest first; else 404. */
  'items.rpc.list-scans': {
    request: z.object({ code: z.string(), ownerUserId: z.uuid() }),
    response: scanHistorySchema,
  },
  /** One scan, for the alert that words it (notifications); 404 `ITEM_NOT_FOUND` once it or its item is gone. */
  'items.rpc.get-scan': {
    request: z.object({ scanId: z.uuid() }),
    response: z.object({ code: z.string(), scannedAt: z.string(), city: z.string().nullable(), country: z.string().nullable(), deviceKind: deviceKindSchema }),
  },
  'items.rpc.get-photo': {
    request: z.object({ code: z.string().min(1).max(64), size: photoSizeSchema }),
    response: storedPhotoSchema,
  },

  // messaging: finders' conversations with owners. `viewerUserId` is the logged-in caller (null for a finder without
  // an account); `finderToken` the caller's X-Finder-Token, if any.
  /** A finder leaves an address before their first message (opens the conversation) or changes it (with a token). */
  'messaging.rpc.set-finder': {
    request: z.object({
      code: z.string(),
      email: emailSchema,
      viewerUserId: z.uuid().nullable(),
      finderToken: finderTokenSchema.optional(),
      /** The language the finder's browser asked in, if it named one: their e-mails and pushes speak it. */
      language: userLanguageSchema.optional(),
    }),
    response: finderTokenResponseSchema,
  },
  /** A finder writes (a first message opens a conversation and answers its token), or the owner replies. */
  'messaging.rpc.post-message': {
    request: z.object({
      code: z.string(),
      // The body's rules again: messaging does not trust that every caller checked them.
      content: createMessageBodySchema.shape.content,
      conversationId: z.uuid().optional(),
      viewerUserId: z.uuid().nullable(),
      finderToken: finderTokenSchema.optional(),
      idempotencyKey: idempotencyKeySchema.optional(),
      /** The language the caller's browser asked in, if it named one: kept for a finder's e-mails and pushes. */
      language: userLanguageSchema.optional(),
    }),
    response: createMessageResponseSchema,
  },
  /** A finder shares where they found the item, as an entry of their conversation (already rounded by the caller and again here). */
  'messaging.rpc.share-location': {
    request: z.object({ code: z.string(), location: shareLocationBodySchema, viewerUserId: z.uuid().nullable(), finderToken: finderTokenSchema.optional() }),
    response: z.object({ message: messageSchema }),
  },
  /** The owner: every conversation's messages (marking finders' messages read); a finder: their own; else 403. */
  'messaging.rpc.list-messages': {
    request: z.object({ code: z.string(), after: z.number().int().min(0).optional(), viewerUserId: z.uuid().nullable(), finderToken: finderTokenSchema.optional() }),
    response: z.array(messageSchema),
  },
  /**
   * Who may read an item's thread, asked once by the gateway when a message stream opens or an empty poll is to be
   * answered without messaging: the owner (`conversationId` null) or a finder (their conversation); else 403.
   * `latestMessageId` is the newest message of the item (0 when none), where a stream starts.
   */
  'messaging.rpc.thread-access': {
    request: z.object({ code: z.string(), viewerUserId: z.uuid().nullable(), finderToken: finderTokenSchema.optional() }),
    response: threadAccessSchema,
  },
  /**
   * Every message of an item after an id, labelled as the owner sees them, marking nothing read. For the gateway's
   * message streams, which authorised their callers when they opened and filter per caller (404 for a gone item).
   */
  'messaging.rpc.messages-after': {
    request: z.object({ code: z.string(), after: z.number().int().min(0) }),
    response: z.array(threadMessageSchema),
  },
  /** One conversation's consent and hand-over state: the finder's own (token), or the owner's named or latest one. */
  'messaging.rpc.conversation-state': {
    request: z.object({ code: z.string(), conversationId: z.uuid().optional(), viewerUserId: z.uuid().nullable(), finderToken: finderTokenSchema.optional() }),
    response: conversationStateSchema,
  },
  /** A side agrees to share contact details, or withdraws while the other has not agreed (409 CONTACT_ALREADY_SHARED). */
  'messaging.rpc.contact-consent': {
    request: z.object({ code: z.string(), agree: z.boolean(), conversationId: z.uuid().optional(), viewerUserId: z.uuid().nullable(), finderToken: finderTokenSchema.optional() }),
    response: conversationStateSchema,
  },
  /** The owner's hand-over code of the day (owner only, else 404). */
  'messaging.rpc.handover-code': {
    request: z.object({ code: z.string(), ownerUserId: z.uuid() }),
    response: handoverCodeSchema,
  },
  /** The finder closes the case with the code the person in front of them told (422 wrong, 429 past the tries, 409 closed). */
  'messaging.rpc.handover': {
    request: z.object({ code: z.string(), handoverCode: z.string().max(32), viewerUserId: z.uuid().nullable(), finderToken: finderTokenSchema.optional() }),
    response: z.object({ closedAt: z.string() }),
  },
  /** Owner only (else 404): whether the latest finder (or the named conversation's finder) left an address. */
  'messaging.rpc.finder-details': {
    request: z.object({ code: z.string(), ownerUserId: z.uuid(), conversationId: z.uuid().optional() }),
    response: finderDetailsSchema,
  },
  /** Owner only (else 404): finders' messages the owner has not read. */
  'messaging.rpc.unread-count': {
    request: z.object({ code: z.string(), ownerUserId: z.uuid() }),
    response: z.object({ count: z.number().int() }),
  },
  /** For each code as asked: whether a finder wrote about it (false for codes that are not the caller's). */
  'messaging.rpc.found-items': {
    request: z.object({ codes: z.array(z.string().max(64)).max(FOUND_ITEMS_MAX_CODES), ownerUserId: z.uuid() }),
    response: z.record(z.string(), z.boolean()),
  },
  /** Owner only (else 404): deletes every conversation of the item, so the next finder starts afresh. */
  /**
   * A finder forgets themselves: their messages, address, language and every token of their conversation are erased
   * (the owner's replies stay, with a marker that the finder left). Only that conversation's finder; anyone else, and a
   * token already forgotten, 403 FORBIDDEN as for reading.
   */
  'messaging.rpc.forget-finder': {
    request: z.object({ code: z.string(), viewerUserId: z.uuid().nullable(), finderToken: finderTokenSchema.optional() }),
    response: nothing,
  },
  'messaging.rpc.reset': {
    request: z.object({ code: z.string(), ownerUserId: z.uuid() }),
    response: nothing,
  },
  /**
   * The address and language a finder left for a conversation: notifications asks it to relay the owner's replies
   * to the finder (and to word their pushes). With `resumeLink`, also a new resume token for the e-mail's link
   * (minted only when there is an address to send it to).
   */
  'messaging.rpc.get-finder-contact': {
    /** `replyAddress`: also a new reply token for the mail's `Reply-To` (the relay's `c-{token}@…`), minted as `resumeLink`'s. */
    request: z.object({ conversationId: z.uuid(), resumeLink: z.boolean().optional(), replyAddress: z.boolean().optional() }),
    response: z.object({ email: z.string().nullable(), language: userLanguageSchema.default('en'), resumeToken: z.string().optional(), replyToken: z.string().optional() }),
  },
  /** A finder opened a resume link (in any browser): its token for a new finder token of the same conversation. */
  'messaging.rpc.resume-finder': {
    request: z.object({ code: z.string(), token: z.string().max(200), language: userLanguageSchema.optional() }),
    response: finderTokenResponseSchema,
  },
  /**
   * A finder asks for a link to their conversation: when a conversation of the item has that address, records
   * `messaging.resume-link.requested.v1`; answers the same either way (404 only for an unknown item).
   */
  'messaging.rpc.request-resume-link': {
    request: z.object({ code: z.string(), email: emailSchema }),
    response: nothing,
  },

  /**
   * Notifications, before an e-mail to the owner about a finder's messages: the newest finder's message of the
   * conversation, from `messageId` on, that the owner has not read (null when they read them all, or the conversation
   * is gone). With `replyAddressFor` (the user the mail goes to) and a message still unread, also a new reply token for
   * the mail's `Reply-To`, as `owner-reply-address` answers it: one round trip for the mail, not two (B3).
   */
  'messaging.rpc.unread-since': {
    request: z.object({ conversationId: z.uuid(), messageId: z.number().int().min(0), replyAddressFor: z.uuid().optional() }),
    response: z.object({ latestUnreadMessageId: z.number().int().nullable(), replyToken: z.string().nullable().optional() }),
  },
  /**
   * Notifications, as it sends the owner an e-mail about a conversation: a new reply token for its `Reply-To`, so the
   * owner's reply by e-mail becomes their message in that conversation. Null when the conversation is gone or the user
   * is no longer the item's owner.
   */
  'messaging.rpc.owner-reply-address': {
    request: z.object({ conversationId: z.uuid(), userId: z.uuid() }),
    response: z.object({ token: z.string().nullable() }),
  },

  // messaging: the e-mail relay (apps/mail-relay). Unknown, retired and erased recipients are all 404 NOT_FOUND.
  /** Whether a relay address names something that takes mail now, and the tag it is about (for the spam limits). */
  'messaging.rpc.relay-recipient': {
    request: z.object({ recipient: relayRecipientSchema }),
    response: z.object({ itemCode: z.string() }),
  },
  /**
   * A mail's text becomes a message. To a tag: a new finder conversation with the sender's address (and
   * `messaging.conversation.opened-by-mail.v1`, for the acknowledgement); to a reply address: a message of its
   * recipient (the finder, or the owner) in its conversation. `mailId` (the mail's Message-ID, else a digest of it)
   * makes a redelivered mail add nothing.
   */
  'messaging.rpc.relay-message': {
    request: z.object({
      recipient: relayRecipientSchema,
      from: emailSchema,
      language: userLanguageSchema.optional(),
      content: multiLineText(MESSAGE_MAX_LENGTH),
      mailId: z.string().min(1).max(200),
    }),
    response: z.object({ itemCode: z.string(), conversationId: z.uuid(), messageId: z.number().int(), author: z.enum(['finder', 'owner']) }),
  },

  // notifications: push subscriptions. An endpoint on a host that is not a known push service is 422 (endpoint).
  /**
   * Stores a subscription for an owner or a finder's conversation (again: its keys are updated); 16 at most each. An
   * owner's comes with the session that asked: once it is stored, a session revoked meanwhile (the account erased a
   * moment after the gateway let the request through) takes it away again and answers 401.
   */
  'notifications.rpc.register-push': {
    request: z.object({ subscriber: pushSubscriberSchema, subscription: pushSubscriptionSchema, sessionId: z.uuid().optional() }),
    response: nothing,
  },
  /** Replaces an owner's subscription the browser changed (the old endpoint's, if given) with the new one; the session as for register-push. */
  'notifications.rpc.reregister-push': {
    request: z.object({ userId: z.uuid(), subscription: pushSubscriptionSchema, oldEndpoint: pushReregisterBodySchema.shape.old_endpoint, sessionId: z.uuid().optional() }),
    response: nothing,
  },
  /**
   * Forgets an owner's subscription (`userId`), or a finder's (`conversationId`: the gateway's own undoing of one stored
   * while its conversation went); unknown endpoints are no error (the client's state may be older).
   */
  'notifications.rpc.unregister-push': {
    request: z
      .object({ userId: z.uuid().optional(), conversationId: z.uuid().optional(), endpoint: pushEndpointSchema })
      .refine((request) => (request.userId === undefined) !== (request.conversationId === undefined), 'exactly one of userId and conversationId'),
    response: nothing,
  },
  /** How one person of an item is told of it (both on unless they turned one off); the gateway checks they are of it. */
  'notifications.rpc.get-item-settings': {
    request: z.object({ code: z.string(), userId: z.uuid() }),
    response: itemNotificationSettingsSchema,
  },
  'notifications.rpc.set-item-settings': {
    request: z.object({ code: z.string(), userId: z.uuid(), email: z.boolean().optional(), push: z.boolean().optional() }),
    response: itemNotificationSettingsSchema,
  },
  'notifications.rpc.vapid-public-key': {
    request: nothing,
    response: vapidPublicKeySchema,
  },

  // identity: the gateway's auth routes, and lookups by other services.
  'identity.rpc.login': {
    request: loginBodySchema,
    response: tokenResponseSchema,
  },
  /** Self-registration; refused with 403 REGISTRATION_DISABLED unless REGISTRATION_ENABLED. */
  'identity.rpc.register': {
    request: registerBodySchema.extend({ language: userLanguageSchema }),
    response: tokenResponseSchema,
  },
  /** Mails a login code to a known address; answers the same for an unknown one. */
  'identity.rpc.request-login-code': {
    request: emailBodySchema,
    response: nothing,
  },
  'identity.rpc.redeem-login-code': {
    request: loginCodeBodySchema,
    response: tokenResponseSchema,
  },
  /** Mails a single-use reset link to a known address; answers the same for an unknown one. */
  'identity.rpc.request-password-reset': {
    request: emailBodySchema,
    response: nothing,
  },
  /** Sets the password with a reset or set-password token, logs in, revokes the user's other sessions. */
  'identity.rpc.set-password': {
    request: setPasswordBodySchema,
    response: tokenResponseSchema,
  },
  /** A logged-in user changes their password; their other sessions are revoked. */
  'identity.rpc.update-password': {
    request: z.object({ userId: z.uuid(), sessionId: z.uuid(), password: passwordSchema }),
    response: nothing,
  },
  /** Rotates an access token (even an expired one) while its session lives; reuse of a rotated token revokes it. */
  'identity.rpc.refresh-token': {
    request: z.object({ token: accessTokenSchema }),
    response: tokenResponseSchema,
  },
  'identity.rpc.logout': {
    request: z.object({ userId: z.uuid(), sessionId: z.uuid() }),
    response: nothing,
  },
  /**
   * A user's address and language, for themselves (`GET /user/me`) and for notifications at send time; whether they
   * have a password, for the welcome e-mail (a set-password link only to a user without one; absent from an identity
   * replica older than the field, read as "no password").
   */
  'identity.rpc.get-user': {
    request: z.object({ userId: z.uuid() }),
    response: userSchema.extend({ hasPassword: z.boolean().optional() }),
  },
  /**
   * Whether the user is an admin now (false when there is no such user): the gateway asks on every admin route, so a
   * revoked admin is refused at once, not when their access token (which carries `is_admin` as of its issue) expires.
   */
  'identity.rpc.admin-rights': {
    request: z.object({ userId: z.uuid() }),
    response: z.object({ isAdmin: z.boolean() }),
  },
  /**
   * The language of the account with this address, or null when none has it: notifications words an invitation in the
   * invitee's language (the inviter's when they have no account). The language only: never whether the address is
   * anyone's to the gateway, which does not call it.
   */
  'identity.rpc.language-of-email': {
    request: z.object({ email: z.string().min(1).max(320) }),
    response: z.object({ language: userLanguageSchema.nullable() }),
  },
  'identity.rpc.set-language': {
    request: z.object({ userId: z.uuid(), language: userLanguageSchema }),
    response: userSchema,
  },
  /**
   * The user with this address, created if new (activation of a tag): a new user gets a set-password token and a
   * login token (an access token), and a welcome e-mail.
   */
  'identity.rpc.ensure-user': {
    request: z.object({ email: emailSchema, language: userLanguageSchema }),
    response: z.object({ userId: z.uuid(), created: z.boolean(), passwordToken: z.string().optional(), loginToken: z.string().optional() }),
  },
  /**
   * Erases the user (`DELETE /user`) after checking their password or a login code of theirs (401 INVALID_CREDENTIALS
   * otherwise, counted like a failed log-in): the account, sessions (revoked at once), codes, links and limits, in one
   * transaction that records `identity.user.deleted.v1` and the farewell e-mail. 404 for a user already gone.
   */
  'identity.rpc.delete-user': {
    request: z.object({ userId: z.uuid(), password: z.string().min(1).max(128).optional(), code: loginCodeInputSchema.optional() }),
    response: z.object({ email: z.string() }),
  },
  // identity: passkeys (WebAuthn). The relying party is PUBLIC_URL's host; every challenge is kept by identity, 5 minutes,
  // single use. Every failure of a passkey log-in answers 401 INVALID_CREDENTIALS, as a wrong password does.
  /**
   * Options to create a passkey for the user of this session, whose log-in must be recent (403
   * RECENT_LOGIN_REQUIRED otherwise); their passkeys are excluded, so one authenticator is registered once.
   */
  'identity.rpc.passkey-registration-options': {
    request: z.object({ userId: z.uuid(), sessionId: z.uuid() }),
    response: passkeyCreationOptionsSchema,
  },
  /** Verifies the browser's answer to those options and stores the passkey (422 VALIDATION_ERROR {response} when it fails). */
  'identity.rpc.register-passkey': {
    request: z.object({ userId: z.uuid(), sessionId: z.uuid(), response: passkeyRegistrationResponseSchema }),
    response: passkeySchema,
  },
  'identity.rpc.list-passkeys': {
    request: z.object({ userId: z.uuid() }),
    response: passkeyListSchema,
  },
  /** 404 NOT_FOUND for a passkey that is not the user's. */
  'identity.rpc.rename-passkey': {
    request: z.object({ userId: z.uuid(), passkeyId: z.uuid(), name: passkeyRenameBodySchema.shape.name }),
    response: passkeySchema,
  },
  'identity.rpc.delete-passkey': {
    request: z.object({ userId: z.uuid(), passkeyId: z.uuid() }),
    response: nothing,
  },
  /** Options for a log-in with any passkey of this site (discoverable: no address asked first). */
  'identity.rpc.passkey-login-options': {
    request: nothing,
    response: passkeyRequestOptionsSchema,
  },
  /** A session for a verified assertion; anything else (a used or expired challenge, another origin, an unknown credential, a counter gone back) is 401. */
  'identity.rpc.passkey-login': {
    request: z.object({ response: passkeyAuthenticationResponseSchema }),
    response: tokenResponseSchema,
  },
  /** What identity keeps about a user, for their export (`GET /user/export`): no hash, token or token id. */
  'identity.rpc.export-user': {
    request: z.object({ userId: z.uuid() }),
    response: identityExportSchema,
  },
  /** Every item a user owns, for their export. */
  'items.rpc.export-owner': {
    request: z.object({ ownerUserId: z.uuid() }),
    response: itemsExportSchema,
  },
  /** The conversations of a user's items with their messages, for the owner's export; finders by role only. */
  'messaging.rpc.export-owner': {
    request: z.object({ ownerUserId: z.uuid() }),
    response: messagingExportSchema,
  },
  /** A user's push subscriptions (shortened) and the e-mails and pushes sent to them, for their export. */
  'notifications.rpc.export-user': {
    request: z.object({ userId: z.uuid() }),
    response: notificationsExportSchema,
  },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type RpcSubject = keyof typeof RpcMap;
export type RpcRequest<S extends RpcSubject> = z.infer<(typeof RpcMap)[S]['request']>;
export type RpcResponse<S extends RpcSubject> = z.infer<(typeof RpcMap)[S]['response']>;

/** Reply headers carry this to tell an error reply from a success. */
export const RPC_ERROR_HEADER = 'Homing-Rpc-Error';
