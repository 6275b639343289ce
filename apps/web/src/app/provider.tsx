import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { i18n } from 'i18next';
import { useState, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';

import type { ApiClient } from '../lib/api-client';
import { ApiProvider } from '../lib/api-context';
import { FlashProvider } from '../lib/flash';

export function createQueryClient(): QueryClient {
  // The API client already retries what is safe to retry; TanStack Query must not retry again on top.
  return new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false }, mutations: { retry: false } } });
}

// Everything the pages rely on besides the router; tests wrap the same providers (src/testing).
export function AppProvider({ i18n, api, children }: { i18n: i18n; api: ApiClient; children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <I18nextProvider i18n={i18n}>
      <ApiProvider api={api}>
        <QueryClientProvider client={queryClient}>
          <FlashProvider>{children}</FlashProvider>
        </QueryClientProvider>
      </ApiProvider>
    </I18nextProvider>
  );
}
