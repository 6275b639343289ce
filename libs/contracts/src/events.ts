import { z } from 'zod';
import type { EventEnvelope } from './envelope';
import { messageAuthorSchema } from './conversations';
import { userLanguageSchema } from './identity';

/**
 * Streams hold events. WARNING: stream names are persisted in NATS; renaming one orphans its stored events.
 * `events` keeps domain events for a week; `secrets` holds events a consumer cannot act on without a secret
 * (a login code, a reset link) and keeps them only minutes (ARCHITECTURE §3).
 */
export const STREAMS = {
  events: { name: 'HOMING_EVENTS', maxAgeMs: 7 * 24 * 60 * 60 * 1000 },
  secrets: { name: 'HOMING_SECRETS', maxAgeMs: 15 * 60 * 1000 },
  deadLetters: { name: 'HOMING_DEAD_LETTERS', maxAgeMs: 30 * 24 * 60 * 60 * 1000 },
} as const;

export type StreamKey = keyof typeof STREAMS;

/** Poison events are republished here (`deadletter.<consumer>`) before they are terminated. */
export const DEAD_LETTER_SUBJECT_PREFIX = 'deadletter';

/**
 * Event subjects `<context>.<entity>.<event>.v<N>`, each with its payload schema and stream.
 * WARNING: subjects are persisted in streams and consumer filters; a breaking payload change is a new subject (v2).
 */
export const EventMap = {
  /** An item created already claimed by its owner (`POST /items`). */
  'items.item.created.v1': {
    stream: 'events',
    data: z.object({
      code: z.string(),
      ownerUserId: z.uuid(),
      claimedAt: z.iso.datetime({ offset: true }),
      /** What the owner called the item. Absent from events recorded before it was added. */
      name: z.string().nullable().optional(),
    }),
  },
  /** A minted tag activated by its new owner (`POST /claim`). */
  'items.item.claimed.v1': {
    stream: 'events',
    data: z.object({
      code: z.string(),
      ownerUserId: z.uuid(),
      claimedAt: z.iso.datetime({ offset: true }),
    }),
  },
  /**
   * An item's owner changed what it is called or the reward offered (`PATCH /user/items/{code}`). Carries the
   * editable state after the change, not the delta: a consumer keeps the newest version and needs nothing else.
   */
  'items.item.updated.v1': {
    stream: 'events',
    data: z.object({
      code: z.string(),
      name: z.string().nullable(),
      /** Integer cents (EUR), null when none was ever set. Internal: shown to people only when rewards are enabled. */
      rewardCents: z.number().int().nullable(),
    }),
  },
  /** The owner uploaded a new photo of the item: its public photo URLs change (they carry the version). */
  'items.item.photo-changed.v1': {
    stream: 'events',
    data: z.object({
      code: z.string(),
      photoVersion: z.number().int(),
    }),
  },
  /**
   * A user created at activation (or self-registration). Carries the set-password token the welcome e-mail links
   * to, so it lives on the short-retention secrets stream.
   */
  'identity.user.registered.v1': {
    stream: 'secrets',
    data: z.object({ userId: z.uuid(), passwordToken: z.string().optional() }),
  },
  /** A login code was asked for a known address: e-mail the code and its link. Secret: on the secrets stream. */
  'identity.login-code.requested.v1': {
    stream: 'secrets',
    data: z.object({ userId: z.uuid(), code: z.string() }),
  },
  /** A password reset was asked for a known address: e-mail the single-use link. Secret: on the secrets stream. */
  'identity.password-reset.requested.v1': {
    stream: 'secrets',
    data: z.object({ userId: z.uuid(), token: z.string() }),
  },
  /**
   * A user erased their account (`DELETE /user`): identity has erased what it kept. Ids only. Every service erases what
   * it holds about the user in its own transaction, once per event (items retires their tags, which deletes the
   * conversations; notifications their push subscriptions and delivery records).
   */
  'identity.user.deleted.v1': {
    stream: 'events',
    data: z.object({ userId: z.uuid() }),
  },
  /**
   * The last e-mail to a user who erased their account: the address is gone from identity, so this event carries it
   * and lives on the short-retention secrets stream (its outbox row is deleted once published).
   */
  'identity.user.farewell.v1': {
    stream: 'secrets',
    data: z.object({ email: z.string(), language: userLanguageSchema }),
  },
  /**
   * A passkey was added to, or deleted from, an account: notifications e-mails the owner, so a passkey they did not
   * add is seen at once. Ids and the provider's name from the authenticator's model (AAGUID; public, never the
   * owner's name for it). Deleting the account erases passkeys without these events.
   */
  'identity.passkey.added.v1': {
    stream: 'events',
    data: z.object({ userId: z.uuid(), passkeyId: z.uuid(), provider: z.string().nullable() }),
  },
  'identity.passkey.deleted.v1': {
    stream: 'events',
    data: z.object({ userId: z.uuid(), passkeyId: z.uuid(), provider: z.string().nullable() }),
  },
  /**
   * Sessions of a user were revoked (log-out, a refresh token's reuse, a password's change or reset, a passkey's
   * deletion, the account's erasure; never a session that merely expired): notifications deletes the owner's push
   * subscriptions those sessions registered. Ids only.
   */
  'identity.sessions.revoked.v1': {
    stream: 'events',
    data: z.object({ userId: z.uuid(), sessionIds: z.array(z.uuid()).min(1) }),
  },
  /**
   * A lost item's tag was scanned (scans of items not lost publish nothing). Ids and the time only: where it was
   * scanned stays in items, which notifications asks (`items.rpc.get-scan`) when it words the alert.
   */
  'items.item.scanned.v1': {
    stream: 'events',
    data: z.object({
      code: z.string(),
      ownerUserId: z.uuid(),
      scanId: z.uuid(),
      scannedAt: z.iso.datetime({ offset: true }),
    }),
  },
  /**
   * Who the people of an item are now: its owner and its co-owners (the whole set after each change: an invitation
   * accepted, a co-owner removed or gone, a transfer). Same aggregate and version as the item's other events, so a
   * projection applies it only if newer. Items created before co-owners existed have had none.
   */
  'items.item.people-changed.v1': {
    stream: 'events',
    data: z.object({ code: z.string(), ownerUserId: z.uuid(), coOwnerUserIds: z.array(z.uuid()) }),
  },
  /**
   * The item passed to a new owner who accepted the transfer: its conversations are cleared (the next owner starts
   * fresh), co-owners removed (with `items.item.people-changed.v1` in the same transaction), the old owner loses access.
   */
  'items.item.transferred.v1': {
    stream: 'events',
    data: z.object({ code: z.string(), previousOwnerUserId: z.uuid(), ownerUserId: z.uuid() }),
  },
  /**
   * An invitation to share an item or to take it over: e-mail its link to the address. Secret (the link's token and the
   * address): on the secrets stream. `inviterUserId` words it (their language when the invitee has no account).
   */
  'items.invitation.created.v1': {
    stream: 'secrets',
    data: z.object({
      invitationId: z.uuid(),
      code: z.string(),
      kind: z.enum(['co-owner', 'transfer']),
      email: z.string(),
      token: z.string(),
      inviterUserId: z.uuid(),
    }),
  },
  /** An item deleted by its owner: its conversations go with it. */
  'items.item.deleted.v1': {
    stream: 'events',
    data: z.object({
      code: z.string(),
    }),
  },
  /**
   * A message written in a finder's conversation. Ids and roles only: no content, no address. The aggregate is the
   * item's thread (`aggregateId` = item code) and `version` the message id, which rises with every message.
   */
  'messaging.message.created.v1': {
    stream: 'events',
    data: z.object({
      itemCode: z.string(),
      conversationId: z.uuid(),
      messageId: z.number().int(),
      author: messageAuthorSchema,
      ownerUserId: z.uuid(),
    }),
  },
  /**
   * Every conversation of an item deleted by its owner (reset). Same aggregate as messages; its `version` is drawn
   * from the same sequence as message ids, so it orders after every message before it and before every one after.
   */
  'messaging.conversation.cleared.v1': {
    stream: 'events',
    data: z.object({ itemCode: z.string(), ownerUserId: z.uuid() }),
  },
  /**
   * Conversations deleted whole with everything in them (an owner's reset, an item's deletion, an erased account): ids
   * only, for whoever keeps something per conversation (notifications' finders' push subscriptions). Same aggregate as
   * messages; `version` from the message id sequence.
   */
  'messaging.conversations.erased.v1': {
    stream: 'events',
    data: z.object({ itemCode: z.string(), conversationIds: z.array(z.uuid()).min(1) }),
  },
  /**
   * A finder deleted their conversation (`DELETE /items/{code}/conversation`): their messages, address and tokens are
   * gone. Ids only. Same aggregate as messages; `version` from the message id sequence. Notifications deletes the
   * conversation's push subscriptions; the gateway ends the finder's streams and tells the owner's.
   */
  'messaging.finder.left.v1': {
    stream: 'events',
    data: z.object({ itemCode: z.string(), conversationId: z.uuid(), ownerUserId: z.uuid() }),
  },
  /**
   * The receipts of messages changed (delivered to or read by the other side). Ids only. Same aggregate as messages
   * (`aggregateId` = item code); `version` is drawn from the message id sequence, so a poll `after=` below it has news.
   */
  'messaging.messages.receipts.v1': {
    stream: 'events',
    data: z.object({ itemCode: z.string(), conversationId: z.uuid(), messageIds: z.array(z.number().int()) }),
  },
  /**
   * Notifications told the other side of a conversation of a message (a push or an e-mail went out). Ids only; the
   * message and every earlier one of the same author in the conversation count as delivered.
   */
  'notifications.message.delivered.v1': {
    stream: 'events',
    data: z.object({ itemCode: z.string(), conversationId: z.uuid(), messageId: z.number().int() }),
  },
  /**
   * A finder's e-mail to a tag's relay address opened a conversation: acknowledge it to the address it came from, with
   * the conversation's reply address. Ids only: the address is looked up when the e-mail is sent.
   */
  'messaging.conversation.opened-by-mail.v1': {
    stream: 'events',
    data: z.object({ itemCode: z.string(), conversationId: z.uuid() }),
  },
  /**
   * A finder handed the item over with the owner's hand-over code: the conversation is closed to new messages, and
   * items ends the item's lost mode. Ids and the time only.
   */
  'messaging.conversation.handed-over.v1': {
    stream: 'events',
    data: z.object({ itemCode: z.string(), conversationId: z.uuid(), ownerUserId: z.uuid(), closedAt: z.iso.datetime({ offset: true }) }),
  },
  /**
   * A finder asked for a link to their conversation and left the address it has: e-mail them one. Ids only: the
   * address and the link's token are looked up (and minted) when the e-mail is sent.
   */
  'messaging.resume-link.requested.v1': {
    stream: 'events',
    data: z.object({ itemCode: z.string(), conversationId: z.uuid() }),
  },
} as const satisfies Record<string, { stream: StreamKey; data: z.ZodType }>;

export type EventSubject = keyof typeof EventMap;
export type EventData<S extends EventSubject> = z.infer<(typeof EventMap)[S]['data']>;
/**
 * An event of one of the subjects S. Distributes over the union, so checking `event.subject` narrows `event.data`
 * without a cast.
 */
export type DomainEvent<S extends EventSubject = EventSubject> = S extends EventSubject ? EventEnvelope<S, EventData<S>> : never;

export function eventSubjectsOf(stream: StreamKey): EventSubject[] {
  return (Object.keys(EventMap) as EventSubject[]).filter((subject) => EventMap[subject].stream === stream);
}

export function isEventSubject(subject: string): subject is EventSubject {
  return Object.prototype.hasOwnProperty.call(EventMap, subject);
}

/** The stream an event subject is stored in. */
export function streamOfEvent(subject: EventSubject): StreamKey {
  return EventMap[subject].stream;
}
