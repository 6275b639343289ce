import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { i18n } from 'i18next';
import { useEffect, useState, type ReactNode } from 'react';

import { forgetLoginTarget } from '../features/auth/redirects';
import type { ApiClient } from '../lib/api-client';
import { PageProvider } from './page-provider';
import { tanstackPageQueries } from './tanstack-page-queries';

export function createQueryClient(): QueryClient {
  // The API client already retries what is safe to retry; TanStack Query must not retry again on top.
  return new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false }, mutations: { retry: false } } });
}

/**
 * Empties the cache when the session ends (logout, account deletion, expiry) or another user logs in, so the next user
 * of this tab never sees the previous one's data, not even while their own loads. A refresh keeps it: same user. The
 * page a pending login code was to return to goes too: the next person's login in this browser must not land there.
 */
function forgetOtherUsersData(api: ApiClient, queryClient: QueryClient): () => void {
  let userId = api.claims()?.id ?? null;
  return api.onSessionChange(() => {
    const nextUserId = api.claims()?.id ?? null;
    if (nextUserId !== userId) {
      queryClient.clear();
      forgetLoginTarget();
    }
    userId = nextUserId;
  });
}

// Everything the pages rely on besides the router; tests wrap the same providers (src/testing). The finder's page asks
// its queries through TanStack Query too here, in the same cache as every other screen.
export function AppProvider({ i18n, api, children }: { i18n: i18n; api: ApiClient; children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  useEffect(() => forgetOtherUsersData(api, queryClient), [api, queryClient]);
  return (
    <QueryClientProvider client={queryClient}>
      <PageProvider i18n={i18n} api={api} queries={tanstackPageQueries}>
        {children}
      </PageProvider>
    </QueryClientProvider>
  );
}
