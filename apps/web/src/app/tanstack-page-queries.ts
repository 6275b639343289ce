import { useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import { useMemo } from 'react';

import type { PageQueries, PageQuery, PageQueryCache, PageQueryKey, PageQueryOptions } from '../lib/page-queries';

/**
 * The app answers the page queries (lib/page-queries.tsx) with TanStack Query, in the one cache of every screen: as
 * the finder's page asked TanStack Query before it had its own entry.
 */
export const tanstackPageQueries: PageQueries = {
  useQuery: function useTanstackPageQuery<T>({ key, fetch, enabled, initialData, dropWhenUnused, refetchInterval }: PageQueryOptions<T>): PageQuery<T> {
    const options: UseQueryOptions<T, Error, T, PageQueryKey> = {
      queryKey: key,
      queryFn: fetch,
      ...(enabled !== undefined ? { enabled } : {}),
      ...(dropWhenUnused ? { gcTime: 0 } : {}),
      // Stale from the start: asked for again in the background.
      ...(initialData !== undefined ? { initialData, initialDataUpdatedAt: 0 } : {}),
      ...(refetchInterval ? { refetchInterval: (query) => refetchInterval(query.state.data) } : {}),
    };
    return useQuery(options);
  },
  useCache: function useTanstackPageQueryCache(): PageQueryCache {
    const queryClient = useQueryClient();
    return useMemo(
      () => ({
        invalidate: (key) => void queryClient.invalidateQueries({ queryKey: key }),
        setData: (key, data) => void queryClient.setQueryData(key, data),
      }),
      [queryClient],
    );
  },
};
