import type { i18n } from 'i18next';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';

import type { ApiClient } from '../lib/api-client';
import { ApiProvider } from '../lib/api-context';
import { FlashProvider } from '../lib/flash';
import { PageQueriesProvider, type PageQueries } from '../lib/page-queries';

/**
 * What the finder's page relies on: i18n, the API client, its queries and flash messages. The finder page's own entry
 * gives it its small store of queries (lib/page-query-store.ts); the app, TanStack Query (AppProvider).
 */
export function PageProvider({ i18n, api, queries, children }: { i18n: i18n; api: ApiClient; queries: PageQueries; children: ReactNode }) {
  return (
    <I18nextProvider i18n={i18n}>
      <ApiProvider api={api}>
        <PageQueriesProvider queries={queries}>
          <FlashProvider>{children}</FlashProvider>
        </PageQueriesProvider>
      </ApiProvider>
    </I18nextProvider>
  );
}
