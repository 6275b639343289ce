import { z } from 'zod';
import { photoUrlsSchema } from './photos';

// An owner's data export (GDPR art. 15/20): each service answers for one user id with what it keeps about them.
// Times travel as ISO strings; secrets (hashes, token ids, push keys) and other people's data never appear.

/** Identity's part: the account, its sessions (never a token or hash), and the e-mails asked for on its behalf. */
export const identityExportSchema = z.object({
  account: z.object({
    email: z.string(),
    language: z.string(),
    createdAt: z.string(),
    hasPassword: z.boolean(),
    isAdmin: z.boolean(),
  }),
  sessions: z.array(
    z.object({
      createdAt: z.string(),
      lastUsedAt: z.string(),
      expiresAt: z.string(),
      revokedAt: z.string().nullable(),
      /** The passkey the session was opened with, as `passkeys` names it; null for a password, a code or a link. */
      passkey: z.object({ name: z.string().nullable(), provider: z.string().nullable() }).nullable(),
    }),
  ),
  /** The account's passkeys: their names, providers and times (never a key or credential id). */
  // Defaults to none: an identity replica older than passkeys still answers during a rollout.
  passkeys: z.array(z.object({ name: z.string().nullable(), provider: z.string().nullable(), synced: z.boolean(), createdAt: z.string(), lastUsedAt: z.string().nullable() })).default([]),
  /** The per-address mail limits' records: which kind of e-mail was asked for, and when. */
  mailRequests: z.array(z.object({ kind: z.string(), sentAt: z.string() })),
});
export type IdentityExport = z.infer<typeof identityExportSchema>;

/** Items' part: every item the user owns. */
export const itemsExportSchema = z.object({
  items: z.array(
    z.object({
      code: z.string(),
      name: z.string().nullable(),
      rewardCents: z.number().int().nullable(),
      createdAt: z.string(),
      claimedAt: z.string().nullable(),
      photo: photoUrlsSchema.nullable(),
      /** Since when it is marked lost, and the note to finders (null when not lost). */
      lostAt: z.string().nullable(),
      lostNote: z.string().nullable(),
      /** The scans of its tag still kept (SCAN_HISTORY_DAYS days), newest first. */
      scans: z.array(z.object({ scannedAt: z.string(), city: z.string().nullable(), country: z.string().nullable(), deviceKind: z.string() })),
    }),
  ),
  /**
   * The items the user co-owns (someone else's, shared with them): which, its name, and since when. Absent from an
   * items of before it was added.
   */
  sharedItems: z.array(z.object({ code: z.string(), name: z.string().nullable(), addedAt: z.string() })).optional(),
});
export type ItemsExport = z.infer<typeof itemsExportSchema>;

/** Messaging's part: the conversations of the owner's items; a finder is only ever "finder". */
export const messagingExportSchema = z.object({
  conversations: z.array(
    z.object({
      itemCode: z.string(),
      startedAt: z.string(),
      lastMessageAt: z.string().nullable(),
      finderLeftAnAddress: z.boolean(),
      messages: z.array(
        z.object({
          author: z.enum(['owner', 'finder']),
          content: z.string(),
          createdAt: z.string(),
          deliveredAt: z.string().nullable(),
          readAt: z.string().nullable(),
          /** A place the finder shared. */
          location: z.object({ lat: z.number(), lon: z.number(), accuracyM: z.number(), precise: z.boolean() }).optional(),
        }),
      ),
    }),
  ),
});
export type MessagingExport = z.infer<typeof messagingExportSchema>;

/** Notifications' part: push subscriptions (endpoint shortened) and what was sent (never content or addresses). */
export const notificationsExportSchema = z.object({
  pushSubscriptions: z.array(z.object({ endpoint: z.string(), createdAt: z.string() })),
  deliveries: z.array(z.object({ kind: z.string(), channel: z.string(), status: z.string(), createdAt: z.string(), sentAt: z.string().nullable() })),
  /** The person's own notification settings per item they turned something off for (no row: both on). */
  itemSettings: z.array(z.object({ itemCode: z.string(), email: z.boolean(), push: z.boolean(), updatedAt: z.string() })),
});
export type NotificationsExport = z.infer<typeof notificationsExportSchema>;

/** `GET /user/export`: the whole file. */
export const userExportSchema = z.object({
  exported_at: z.string(),
  about: z.record(z.string(), z.string()),
  account: identityExportSchema.shape.account,
  sessions: identityExportSchema.shape.sessions,
  passkeys: identityExportSchema.shape.passkeys,
  mail_requests: identityExportSchema.shape.mailRequests,
  items: itemsExportSchema.shape.items,
  shared_items: itemsExportSchema.shape.sharedItems.unwrap(),
  conversations: messagingExportSchema.shape.conversations,
  push_subscriptions: notificationsExportSchema.shape.pushSubscriptions,
  notifications_sent: notificationsExportSchema.shape.deliveries,
  notification_settings: notificationsExportSchema.shape.itemSettings,
});
export type UserExport = z.infer<typeof userExportSchema>;

/**
 * A push endpoint as the export shows it: its origin and its last 8 characters. The full URL is a capability (anyone
 * holding it with the keys can push); the shortened one still lets a person recognise their browser's push service.
 */
export function shortenPushEndpoint(endpoint: string): string {
  let origin: string;
  try {
    origin = new URL(endpoint).origin;
  } catch {
    origin = '';
  }
  return `${origin}/…${endpoint.slice(-8)}`;
}
