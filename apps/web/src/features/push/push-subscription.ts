import type { PushSubscriptionBody, VapidPublicKey } from '@homing/contracts';

import type { ApiClient } from '../../lib/api-client';
import { finderHeaders } from '../messages';

// Product spec §9: after a decline or an accept the opt-in is not offered again for 1 hour, and the service worker
// must be ready within 3 s.
export const PUSH_OPT_IN_SNOOZE_MS = 60 * 60 * 1000;
export const SERVICE_WORKER_READY_MS = 3000;

// WARNING: persisted in users' browsers; renaming it offers the opt-in again to everyone who just answered it.
const snoozeKey = 'homing.push.snoozedUntil';

/** Who a subscription tells: the logged-in owner, or the finder of one conversation about an item. */
export type PushTarget = { kind: 'owner' } | { kind: 'finder'; code: string; finderToken: string };

export function pushSupported(): boolean {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

function snoozedUntil(): number {
  try {
    return Number(localStorage.getItem(snoozeKey) ?? 0) || 0;
  } catch {
    return 0;
  }
}

/** Whether to offer push now: the browser can, the user has not refused it for good, nor answered in the last hour. */
export function shouldOfferPush(now = Date.now()): boolean {
  return pushSupported() && Notification.permission !== 'denied' && snoozedUntil() <= now;
}

export function snoozePushOptIn(now = Date.now()): void {
  try {
    localStorage.setItem(snoozeKey, String(now + PUSH_OPT_IN_SNOOZE_MS));
  } catch {
    // Storage unavailable: the offer comes back on the next visit.
  }
}

/** The active service worker's registration, or an error when it is not ready within `timeoutMs`. */
export async function serviceWorkerReady(timeoutMs = SERVICE_WORKER_READY_MS): Promise<ServiceWorkerRegistration> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the service worker was not ready within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([navigator.serviceWorker.ready, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Tells the service worker the language to word pushes in (it keeps it across restarts). */
export async function tellServiceWorkerLanguage(language: string): Promise<void> {
  if (!pushSupported()) return;
  const registration = await navigator.serviceWorker.getRegistration();
  registration?.active?.postMessage({ type: 'LANG_UPDATE', language });
}

function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '='));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

function bodyOf(subscription: PushSubscription): PushSubscriptionBody {
  const { endpoint, expirationTime, keys } = subscription.toJSON();
  if (!endpoint || !keys?.p256dh || !keys.auth) throw new Error('the browser gave a push subscription without endpoint or keys');
  return { endpoint, expirationTime: expirationTime ?? null, keys: { p256dh: keys.p256dh, auth: keys.auth } };
}

/**
 * Subscribes this browser to pushes for the owner or the finder (spec §4) and registers the subscription with the
 * server. A subscription made here and then refused by the server is undone, so browser and server agree.
 */
export async function subscribeToPush(api: ApiClient, target: PushTarget, language: string): Promise<void> {
  const registration = await serviceWorkerReady();
  if ((await Notification.requestPermission()) !== 'granted') throw new Error('notifications are not allowed in this browser');
  const { public_key } = await api.request<VapidPublicKey>('GET', '/push/vapid-public-key');
  const existing = await registration.pushManager.getSubscription();
  const subscription = existing ?? (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlToBytes(public_key) }));
  registration.active?.postMessage({ type: 'LANG_UPDATE', language });
  try {
    const body = bodyOf(subscription);
    if (target.kind === 'owner') await api.request<void>('POST', '/user/push/register', { body });
    else {
      await api.request<void>('POST', `/items/${encodeURIComponent(target.code)}/push/register`, { body, headers: finderHeaders(target.finderToken) });
      rememberFinderPush(body.endpoint, target.code);
    }
  } catch (error) {
    if (!existing) await subscription.unsubscribe().catch(() => false);
    throw error;
  }
}

// A browser has one push subscription, which tells the owner who is logged in and any finder who wrote from this
// browser alike. The codes whose finder's conversation it was registered for, with its endpoint: an owner's log-out
// must not end a finder's pushes with it.
// WARNING: persisted in users' browsers; renaming it makes the next log-out end those finders' pushes.
const finderPushKey = 'homing.push.finders';

interface FinderPushes {
  endpoint: string;
  codes: string[];
}

function keptFinderPushes(): FinderPushes | null {
  try {
    const value = JSON.parse(localStorage.getItem(finderPushKey) ?? 'null') as Partial<FinderPushes> | null;
    if (typeof value?.endpoint !== 'string' || !Array.isArray(value.codes)) return null;
    return { endpoint: value.endpoint, codes: value.codes.filter((code): code is string => typeof code === 'string') };
  } catch {
    return null;
  }
}

function keepFinderPushes(pushes: FinderPushes | null): void {
  try {
    if (pushes?.codes.length) localStorage.setItem(finderPushKey, JSON.stringify(pushes));
    else localStorage.removeItem(finderPushKey);
  } catch {
    // Storage unavailable: a log-out then ends the browser's subscription, as it did before finders were counted.
  }
}

function rememberFinderPush(endpoint: string, code: string): void {
  const kept = keptFinderPushes();
  // Codes kept for another endpoint were for a subscription this browser no longer has.
  const codes = kept?.endpoint === endpoint ? kept.codes.filter((known) => known !== code) : [];
  keepFinderPushes({ endpoint, codes: [...codes, code] });
}

/** The finder forgot their conversation about `code`: the server dropped its push subscriptions with it. */
export function forgetFinderPush(code: string): void {
  const kept = keptFinderPushes();
  if (kept) keepFinderPushes({ endpoint: kept.endpoint, codes: kept.codes.filter((known) => known !== code) });
}

function tellsFinders(endpoint: string): boolean {
  const kept = keptFinderPushes();
  return kept?.endpoint === endpoint && kept.codes.length > 0;
}

// Logging out waits at most this long for the push subscription to be taken away: it must never hang on it.
export const PUSH_UNSUBSCRIBE_WAIT_MS = 2000;

/**
 * Stops this browser's pushes for the owner who is leaving, so the next person at it gets none of theirs: the server
 * forgets the subscription (`tellServer`, with the still-valid token; not after deleting the account, whose
 * subscriptions the server drops itself), then the browser ends it, unless a finder's pushes come through it too
 * (registered from this browser) and the server did forget the owner's. Never fails and waits at most `timeoutMs`;
 * what is still under way then goes on in the background.
 */
export async function unsubscribeOwnerPush(api: ApiClient, { tellServer }: { tellServer: boolean }, timeoutMs = PUSH_UNSUBSCRIBE_WAIT_MS): Promise<void> {
  if (!pushSupported()) return;
  const unsubscribe = (async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    const subscription = await registration?.pushManager.getSubscription();
    if (!subscription) return;
    const ownerForgotten = tellServer
      ? await api.request<void>('POST', '/user/push/unregister', { body: { endpoint: subscription.endpoint } }).then(
          () => true,
          () => false,
        )
      : true;
    // Unanswered, the server may still push the owner's news here: the subscription goes, finders' pushes with it.
    if (ownerForgotten && tellsFinders(subscription.endpoint)) return;
    await subscription.unsubscribe();
    keepFinderPushes(null);
  })().catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  try {
    await Promise.race([unsubscribe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
