import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { FinderApp } from './app/finder-app';
import { startPageServices, takeOverRenderedPage } from './app/page-start';
import { PageProvider } from './app/page-provider';
import { keepServerRenderedItem, serverRenderedItem } from './features/messages/server-rendered-item';
import { followPrerenderedLanguage } from './i18n/i18n';
import { safeLocalStorage, tokenStorageKey } from './lib/api-session';
import { createPageQueryStore } from './lib/page-query-store';

// The finder page's own entry (issue 29), the script of the page the gateway renders for /found/{code}: a finder on a
// phone fetches and runs React, the texts and the finder's page, not the app's router, TanStack Query and every other
// screen (the finder's page asks for its item and its conversation's state through lib/page-queries.tsx, answered here
// by a small store of its own). The page's stylesheet is the app's, linked by the page itself. Everything the
// finder's page does not show loads the whole app (src/main.tsx) instead: a logged-in visitor (an owner sees their
// thread), and a page without a finder's item (no such tag, a tag not activated, the item not found by the gateway).

const container = document.getElementById('root');
const code = codeOfPath(window.location.pathname);
if (container) keepServerRenderedItem(container);

if (!container || !code || !serverRenderedItem(code) || safeLocalStorage()?.getItem(tokenStorageKey)) {
  void import('./main');
} else {
  const { api, i18n } = startPageServices();
  followPrerenderedLanguage(i18n, container);
  takeOverRenderedPage(container, i18n, Promise.resolve(), () =>
    createRoot(container).render(
      <StrictMode>
        <PageProvider i18n={i18n} api={api} queries={createPageQueryStore()}>
          <FinderApp code={code} />
        </PageProvider>
      </StrictMode>,
    ),
  );
}

/** The code of a `/found/{code}` address, as the app's route reads it; null for any other page. */
function codeOfPath(path: string): string | null {
  const match = /^\/found\/([^/]+)\/?$/.exec(path);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}
