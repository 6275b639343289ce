import './styles.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';

import { startPageServices, takeOverRenderedPage } from './app/page-start';
import { AppProvider } from './app/provider';
import { createAppRouter } from './app/router';
import { followPrerenderedLanguage, languageReady } from './i18n/i18n';

const container = document.getElementById('root');
if (!container) throw new Error('index.html must contain an element with id "root"');

const { api, i18n } = startPageServices();
const router = createAppRouter();

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

// The finder page arrives rendered (the gateway's page, or found.html): it stays until the page's code and the texts of
// its language have loaded. Every other page renders once its language's texts are in (English comes with the app),
// so none shows English first.
if (container.hasChildNodes()) followPrerenderedLanguage(i18n, container);

if (container.hasChildNodes() && !router.state.initialized) {
  const pageLoaded = new Promise<void>((loaded) => {
    const unsubscribe = router.subscribe((state) => {
      if (!state.initialized) return;
      unsubscribe();
      loaded();
    });
  });
  takeOverRenderedPage(container, i18n, pageLoaded, start);
} else {
  void languageReady(i18n).then(start);
}
