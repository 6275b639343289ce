import { z } from 'zod';

/** Push subscriptions kept per user (and per finder's conversation): a new one beyond this replaces the oldest. */
export const PUSH_SUBSCRIPTIONS_MAX = 16;

// base64url without padding, as browsers give the keys: P-256 public key uncompressed (65 bytes), auth secret 16 bytes.
const base64url = (bytes: number) => z.string().regex(new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((bytes * 4) / 3)}}$`));

/**
 * Where a push service takes a subscription's pushes, as browsers give it. Every endpoint the API takes, one to forget
 * or replace too, is checked so: a value of another shape cannot name a subscription (and one with a NUL character
 * could not even be compared with those stored).
 */
export const pushEndpointSchema = z
  .url({ protocol: /^https$/ })
  .max(1024)
  // A URL parser takes a NUL in a path; PostgreSQL cannot store or compare one (it answered 500).
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not hold control characters');

/**
 * A browser's push subscription as `PushSubscription.toJSON()` gives it. Which hosts an endpoint may name is the
 * notifications service's configuration: it checks them when one is registered and again before every send.
 */
export const pushSubscriptionSchema = z.strictObject({
  endpoint: pushEndpointSchema,
  expirationTime: z.number().int().nullable().optional(),
  keys: z.strictObject({ p256dh: base64url(65), auth: base64url(16) }),
});
export type PushSubscriptionBody = z.infer<typeof pushSubscriptionSchema>;

/** `POST /user/push/reregister`: the browser's new subscription, and the endpoint it replaces (`pushsubscriptionchange`). */
export const pushReregisterBodySchema = pushSubscriptionSchema.extend({ old_endpoint: pushEndpointSchema.optional() });
export type PushReregisterBody = z.infer<typeof pushReregisterBodySchema>;

/** `POST /user/push/unregister`. */
export const pushUnregisterBodySchema = z.strictObject({ endpoint: pushEndpointSchema });
export type PushUnregisterBody = z.infer<typeof pushUnregisterBodySchema>;

/** `GET /push/vapid-public-key`: the application server key the browser subscribes with (base64url). */
export const vapidPublicKeySchema = z.object({ public_key: z.string() });
export type VapidPublicKey = z.infer<typeof vapidPublicKeySchema>;

/** Who a subscription tells: a logged-in owner, or the finder of one conversation (by their finder token). */
export const pushSubscriberSchema = z.union([z.strictObject({ userId: z.uuid() }), z.strictObject({ conversationId: z.uuid() })]);
export type PushSubscriber = z.infer<typeof pushSubscriberSchema>;

/**
 * What a push carries: what happened and where to look. No names, addresses or message text: the push service
 * relays it, and the service worker words it in the browser's language.
 */
export type PushPayload = NewMessagePushPayload | ScanAlertPushPayload;

export interface NewMessagePushPayload {
  kind: 'new-message';
  /** `finder` wrote (to the owner) or the `owner` replied (to the finder). */
  author: 'finder' | 'owner';
  /** Path of the page to open: `/found/XXXX-XXXX-XXXX-XXXX`. */
  url: string;
  /**
   * The language to word it in, when the recipient has one kept on the server (a finder's conversation keeps the
   * language they wrote in); else the service worker uses the browser's.
   */
  language?: 'en' | 'nl' | 'es';
}

/**
 * To an owner, while their item is lost: its tag was just scanned. Carries the scan's rough place (only the owner's
 * browser can read a push), never the item's name.
 */
export interface ScanAlertPushPayload {
  kind: 'scan-alert';
  /** Path of the owner's item page: `/item/XXXX-XXXX-XXXX-XXXX`. */
  url: string;
  /** When it was scanned (ISO 8601). */
  scanned_at: string;
  /** The city of the scanning address and its country (ISO 3166-1 alpha-2), when the offline database knew them. */
  city: string | null;
  country: string | null;
  language?: 'en' | 'nl' | 'es';
}
