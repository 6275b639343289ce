/// <reference lib="webworker" />
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';
import type { NewMessagePushPayload, PushPayload, ScanAlertPushPayload } from '@homing/contracts';

import { pushTexts, type PushWording } from './features/push/push-texts';

// The service worker (vite-plugin-pwa, injectManifest): precaches the app's shell, shows pushes in the user's
// language and opens the right thread (or, for a scan of a lost item, the item's page) when one is clicked.
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> };

// WARNING: persisted in users' browsers; renaming it forgets the language of every installed service worker.
const SETTINGS_CACHE = 'homing-settings';
const LANGUAGE_URL = '/__settings/language';

cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);

// A new version takes over at once: it only adds pushes and a precache, nothing an open page depends on.
self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// The language lives in Cache storage: a service worker is stopped and restarted at will, and loses its variables.
async function storeLanguage(language: string): Promise<void> {
  const cache = await caches.open(SETTINGS_CACHE);
  await cache.put(LANGUAGE_URL, new Response(language, { headers: { 'content-type': 'text/plain' } }));
}

// The language the page chose in this browser; else the one a finder's push names (their conversation's); else the browser's.
async function storedLanguage(named?: string): Promise<string> {
  const cache = await caches.open(SETTINGS_CACHE);
  const stored = await cache.match(LANGUAGE_URL);
  return stored ? await stored.text() : (named ?? self.navigator.language ?? 'en');
}

self.addEventListener('message', (event) => {
  const data: unknown = event.data;
  if (typeof data === 'object' && data !== null && (data as { type?: unknown }).type === 'LANG_UPDATE') {
    const language = (data as { language?: unknown }).language;
    if (typeof language === 'string') event.waitUntil(storeLanguage(language));
  }
});

function parsePayload(data: PushMessageData | null): PushPayload | null {
  try {
    const payload = data?.json() as Partial<Record<keyof NewMessagePushPayload | keyof ScanAlertPushPayload, unknown>> | undefined;
    if (typeof payload?.url !== 'string' || !payload.url.startsWith('/')) return null;
    const language = payload.language === 'en' || payload.language === 'nl' || payload.language === 'es' ? payload.language : undefined;
    const named: Pick<PushPayload, 'language'> = language ? { language } : {};
    if (payload.kind === 'new-message') return { kind: payload.kind, author: payload.author === 'owner' ? 'owner' : 'finder', url: payload.url, ...named };
    if (payload.kind === 'scan-alert') {
      const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value : null);
      return { kind: payload.kind, url: payload.url, scanned_at: text(payload.scanned_at) ?? '', city: text(payload.city), country: text(payload.country), ...named };
    }
    return null;
  } catch {
    return null;
  }
}

/** What a push says: a message in a thread, or a scan of a lost item's tag (near its city, when known). */
function wordingOf(payload: PushPayload, texts: ReturnType<typeof pushTexts>): PushWording {
  if (payload.kind === 'scan-alert') return texts.scanAlert(payload.city);
  return payload.author === 'owner' ? texts.fromOwner : texts.fromFinder;
}

self.addEventListener('push', (event) => {
  const payload = parsePayload(event.data);
  if (!payload) return;
  event.waitUntil(
    storedLanguage(payload.language).then((language) => {
      const texts = pushTexts(language);
      const wording = wordingOf(payload, texts);
      return self.registration.showNotification(wording.title, {
        body: wording.body,
        icon: '/favicon.svg',
        lang: texts.language,
        // One notification per thread, or per item's scans: a newer one replaces the older.
        tag: payload.url,
        data: { url: payload.url },
      });
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const path = (event.notification.data as { url?: unknown } | null)?.url;
  const target = new URL(typeof path === 'string' && path.startsWith('/') ? path : '/', self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(async (windows) => {
      const open = windows.find((client) => client.url === target);
      if (open) return open.focus();
      // Another page of the app: it goes to the thread, rather than a second window.
      const other = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (other) {
        const navigated = await other.navigate(target).catch(() => null);
        if (navigated) return navigated.focus();
      }
      return self.clients.openWindow(target);
    }),
  );
});
