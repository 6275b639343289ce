import type { i18n } from 'i18next';

import { keepPrerenderedDraft } from '../features/messages/prerendered-draft';
import { keepServerRenderedItem } from '../features/messages/server-rendered-item';
import { registerServiceWorker } from '../features/push/service-worker';
import { tellServiceWorkerLanguage } from '../features/push/push-subscription';
import { createI18n, keepPrerenderedLanguage, languageReady } from '../i18n/i18n';
import { ApiClient } from '../lib/api-client';

// What both entries do as a page starts: the app's (src/main.tsx) and the finder page's own (src/finder-main.tsx).

/** The page's API client and texts, and its service worker told the page's language. */
export function startPageServices(): { api: ApiClient; i18n: i18n } {
  // The language header follows the page's language, which i18n keeps current.
  const api = new ApiClient({ language: () => document.documentElement.lang || 'en' });
  const i18n = createI18n({ browserLanguages: () => api.request<string[]>('GET', '/lang', { base: '' }), pageLanguage: document.documentElement.lang });
  const pageLanguage = () => i18n.resolvedLanguage ?? 'en';
  registerServiceWorker(pageLanguage);
  // Pushes are worded in the page's language, whoever reads them (a finder is not logged in).
  i18n.on('languageChanged', () => void tellServiceWorkerLanguage(pageLanguage()).catch(() => undefined));
  return { api, i18n };
}

/**
 * A page that arrived rendered (the gateway's finder page, or found.html) stays, and keeps what the finder types,
 * until `pageLoaded` and the texts of its language are in and `start` can take its place without a blank moment in
 * between.
 */
export function takeOverRenderedPage(container: HTMLElement, texts: i18n, pageLoaded: Promise<void>, start: () => void): void {
  // The gateway's finder page posts its form itself, for browsers that run no script. This one does: the app sends it,
  // so the page's button waits for the app as found.html's does (a message posted meanwhile would open a conversation
  // whose finder token only an HttpOnly cookie holds, which the app cannot read).
  for (const button of container.querySelectorAll<HTMLButtonElement>('form[action] button[type="submit"]')) button.disabled = true;
  void Promise.all([pageLoaded, languageReady(texts)]).then(() => {
    keepPrerenderedDraft(container);
    keepServerRenderedItem(container);
    void keepPrerenderedLanguage(texts, container);
    start();
  });
}
