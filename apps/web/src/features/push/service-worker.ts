import { tellServiceWorkerLanguage } from './push-subscription';

/**
 * Registers the service worker (push notifications, the precached shell) once the page has loaded, so it never
 * competes with the page for a slow connection, and tells it the page's language. Built apps only: the development
 * server has no `sw.js`.
 */
export function registerServiceWorker(language: () => string): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const register = () => {
    void import('workbox-window')
      .then(({ Workbox }) => new Workbox('/sw.js').register())
      .then(() => navigator.serviceWorker.ready)
      .then(() => tellServiceWorkerLanguage(language()))
      .catch(() => {
        // No service worker: the app works without pushes.
      });
  };
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}
