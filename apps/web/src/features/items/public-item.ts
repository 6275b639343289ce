import { useCallback } from 'react';
import type { PublicItem } from '@homing/contracts';

import type { ApiClient } from '../../lib/api-client';
import { useApi } from '../../lib/api-context';
import { usePageQuery, usePageQueryCache } from '../../lib/page-queries';

// The item as anyone who scans its tag sees it, apart from the owner's calls (api.ts): the finder page's own entry
// reads it without TanStack Query, through the page queries (lib/page-queries.tsx).

/** The one key of an item as anyone who scans its tag sees it (the finder page, activation). */
export const publicItemKey = (code: string) => ['items', 'public', code] as const;

/** What anyone who scans the tag may see (`GET /items/{code}`); the answer says whether the caller owns it. */
export function usePublicItem(code: string, initialItem?: PublicItem) {
  const api = useApi();
  // Not kept between visits: a tag activated or renamed meanwhile must not be shown as it was. An item the page arrived
  // with is shown at once and asked for again in the background (stale from the start).
  return usePageQuery({
    key: publicItemKey(code),
    fetch: () => api.request<PublicItem>('GET', `/items/${encodeURIComponent(code)}`),
    dropWhenUnused: true,
    initialData: initialItem,
  });
}

/**
 * Asks again for the item where a page shows it, after the finder's page changed it (handed over: no longer lost). The
 * page passes it to the finder's view, which as another feature's sees neither this file nor the key.
 */
export function useRefreshPublicItem(code: string): () => void {
  const queries = usePageQueryCache();
  return useCallback(() => queries.invalidate(publicItemKey(code)), [queries, code]);
}

/** Tells the owner's scan history that the tag's page was opened (204); the gateway adds when, where and which device. */
export function recordScan(api: ApiClient, code: string) {
  return api.request<void>('POST', `/items/${encodeURIComponent(code)}/scans`);
}
