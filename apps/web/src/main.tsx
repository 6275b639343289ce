import './styles.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';

import { AppProvider } from './app/provider';
import { createAppRouter } from './app/router';
import { keepPrerenderedDraft } from './features/messages/prerendered-draft';
import { keepServerRenderedItem } from './features/messages/server-rendered-item';
import { registerServiceWorker } from './features/push/service-worker';
import { tellServiceWorkerLanguage } from './features/push/push-subscription';
import { createI18n, followPrerenderedLanguage, keepPrerenderedLanguage, languageReady } from './i18n/i18n';
import { ApiClient } from './lib/api-client';

const container = document.getElementById('root');
if (!container) throw new Error('index.html must contain an element with id "root"');

// The language header follows the page's language, which i18n keeps current.
const api = new ApiClient({ language: () => document.documentElement.lang || 'en' });
const i18n = createI18n({ browserLanguages: () => api.request<string[]>('GET', '/lang', { base: '' }), pageLanguage: document.documentElement.lang });
const router = createAppRouter();
const pageLanguage = () => i18n.resolvedLanguage ?? 'en';
registerServiceWorker(pageLanguage);
// Pushes are worded in the page's language, whoever reads them (a finder is not logged in).
i18n.on('languageChanged', () => void tellServiceWorkerLanguage(pageLanguage()).catch(() => undefined));

// Spec §4: a token already expired when the page opens is refreshed, and the page reloaded with the fresh one.
void api.reloadIfExpiredAtStart(() => window.location.reload());

const start = () =>
  createRoot(container).render(
    <StrictMode>
      <AppProvider i18n={i18n} api={api}>
        <RouterProvider router={router} />
      </AppProvider>
    </StrictMode>,
  );

// The finder page arrives prerendered (found.html): it stays, and keeps what the finder types, until the page's code
// and the texts of its language have loaded and the app can take its place without a blank moment in between. Every
// other page renders once its language's texts are in (English comes with the app), so none shows English first.
if (container.hasChildNodes()) followPrerenderedLanguage(i18n, container);

if (container.hasChildNodes() && !router.state.initialized) {
  // The gateway's finder page posts its form itself, for browsers that run no script. This one does: the app sends it,
  // so the page's button waits for the app as found.html's does (a message posted meanwhile would open a conversation
  // whose finder token only an HttpOnly cookie holds, which the app cannot read).
  for (const button of container.querySelectorAll<HTMLButtonElement>('form[action] button[type="submit"]')) button.disabled = true;
  const pageLoaded = new Promise<void>((loaded) => {
    const unsubscribe = router.subscribe((state) => {
      if (!state.initialized) return;
      unsubscribe();
      loaded();
    });
  });
  void Promise.all([pageLoaded, languageReady(i18n)]).then(() => {
    keepPrerenderedDraft(container);
    keepServerRenderedItem(container);
    void keepPrerenderedLanguage(i18n, container);
    start();
  });
} else {
  void languageReady(i18n).then(start);
}
