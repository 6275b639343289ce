import { createContext, useContext, type ReactNode } from 'react';

// The queries of the finder's page (its item, the conversation's state) go through this seam rather than through
// TanStack Query directly: the finder page's own entry (src/finder-main.tsx) answers them with a small store of its
// own (lib/page-query-store.ts), without TanStack Query's 13 KB on a finder's phone; the app answers them with TanStack
// Query (app/tanstack-page-queries.ts), in the same cache as every other screen's. The finder's components are the
// same in both.

/** A query's key, as TanStack Query's: an invalidation names a key or the start of keys. */
export type PageQueryKey = readonly unknown[];

export interface PageQueryOptions<T> {
  key: PageQueryKey;
  fetch(): Promise<T>;
  /** Not asked for while false; `data` stays undefined until the first answer. */
  enabled?: boolean;
  /** Shown at once, and asked for again in the background (stale from the start). */
  initialData?: T;
  /** Forgotten as soon as nothing shows it, rather than kept for a page that comes back to it. */
  dropWhenUnused?: boolean;
  /** Asked again every so many milliseconds while shown and the page is visible, by what it holds; false not. */
  refetchInterval?(data: T | undefined): number | false;
}

/** What a page reads of a query: as TanStack Query's result, an error keeps the data an earlier answer brought. */
export type PageQuery<T> =
  | { status: 'pending'; isPending: true; isError: false; data: undefined; error: null }
  | { status: 'error'; isPending: false; isError: true; data: undefined; error: unknown }
  | { status: 'error'; isPending: false; isError: true; data: T; error: unknown }
  | { status: 'success'; isPending: false; isError: false; data: T; error: null };

/** What a change does to the queries: asks again what is shown of a key (or of keys starting so), or sets an answer. */
export interface PageQueryCache {
  invalidate(key: PageQueryKey): void;
  setData<T>(key: PageQueryKey, data: T): void;
}

/** How an entry answers the page queries; both hooks are called as hooks, the same ones for the provider's life. */
export interface PageQueries {
  useQuery<T>(options: PageQueryOptions<T>): PageQuery<T>;
  useCache(): PageQueryCache;
}

const PageQueriesContext = createContext<PageQueries | null>(null);

export function PageQueriesProvider({ queries, children }: { queries: PageQueries; children: ReactNode }) {
  return <PageQueriesContext.Provider value={queries}>{children}</PageQueriesContext.Provider>;
}

function usePageQueries(): PageQueries {
  const queries = useContext(PageQueriesContext);
  if (!queries) throw new Error('the page queries need a PageQueriesProvider (AppProvider, PageProvider) above them');
  return queries;
}

export function usePageQuery<T>(options: PageQueryOptions<T>): PageQuery<T> {
  return usePageQueries().useQuery(options);
}

export function usePageQueryCache(): PageQueryCache {
  return usePageQueries().useCache();
}
