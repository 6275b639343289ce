import { useEffect, useSyncExternalStore } from 'react';

import type { PageQueries, PageQuery, PageQueryCache, PageQueryKey, PageQueryOptions } from './page-queries';

// The finder page's own entry answers the page queries (lib/page-queries.tsx) with this store instead of TanStack
// Query, doing what the finder's page relies on of it the same way: an answer per key shared by what shows it, asked
// for at every showing (stale at once, an initial answer too) with one call per key at a time, asked again on an
// interval while the page is visible (the interval counting from the last answer), on invalidation (an earlier call's
// answer then dropped), and when the browser is back online; an error keeps the data. It keeps nothing that is no
// longer shown: the finder page's entry shows one page, with nothing to come back to.

interface Entry {
  state: PageQuery<unknown>;
  /** The key's elements, for invalidations by the start of keys. */
  parts: readonly string[];
  listeners: Set<() => void>;
  /** How many of what shows it want it asked for (enabled): an invalidation or reconnect asks again only then. */
  enabledObservers: number;
  /** The call of what showed it last: it may read more than the key says (a finder's token). */
  fetch: (() => Promise<unknown>) | null;
  /** The call on its way; one started after it wins, its own answer is then dropped. */
  fetching: Promise<void> | null;
  fetchNumber: number;
  dropTimer?: ReturnType<typeof setTimeout>;
  subscribe(listener: () => void): () => void;
  snapshot(): PageQuery<unknown>;
}

const pending: PageQuery<never> = { status: 'pending', isPending: true, isError: false, data: undefined, error: null };
const answered = <T>(data: T): PageQuery<T> => ({ status: 'success', isPending: false, isError: false, data, error: null });

/** The same answer again keeps the data it replaces, as TanStack Query's does: what depends on it is not redone. */
const sameOrNew = (previous: unknown, next: unknown) => (previous !== undefined && JSON.stringify(previous) === JSON.stringify(next) ? previous : next);

export function createPageQueryStore(): PageQueries {
  const entries = new Map<string, Entry>();

  const publish = (entry: Entry, state: PageQuery<unknown>) => {
    entry.state = state;
    for (const listener of entry.listeners) listener();
  };

  // A tick later, so that a page shown again at once (StrictMode's second mount) finds the answer and the call on its way.
  const dropWhenUnused = (hash: string, entry: Entry) => {
    clearTimeout(entry.dropTimer);
    entry.dropTimer = setTimeout(() => {
      if (entry.listeners.size === 0 && entries.get(hash) === entry) entries.delete(hash);
    }, 0);
  };

  function entryFor(hash: string, key: PageQueryKey, initialData: unknown): Entry {
    const known = entries.get(hash);
    if (known) return known;
    const entry: Entry = {
      state: initialData === undefined ? pending : answered(initialData),
      parts: key.map((part) => JSON.stringify(part)),
      listeners: new Set(),
      enabledObservers: 0,
      fetch: null,
      fetching: null,
      fetchNumber: 0,
      subscribe(listener) {
        clearTimeout(entry.dropTimer);
        if (!entries.has(hash)) entries.set(hash, entry);
        entry.listeners.add(listener);
        return () => {
          entry.listeners.delete(listener);
          if (entry.listeners.size === 0) dropWhenUnused(hash, entry);
        };
      },
      snapshot: () => entry.state,
    };
    entries.set(hash, entry);
    // A render that never shows it (an interrupted one) leaves nothing behind.
    dropWhenUnused(hash, entry);
    return entry;
  }

  /**
   * Asks for the entry's answer. A call on its way is the one, unless `restart` and there is an answer already: that
   * call's answer is then dropped for a new one's (an invalidation), as TanStack Query cancels it.
   */
  function refetch(entry: Entry, restart: boolean): void {
    const fetch = entry.fetch;
    if (!fetch || (entry.fetching && !(restart && entry.state.data !== undefined))) return;
    const number = ++entry.fetchNumber;
    const fetching = fetch().then(
      (data) => {
        if (number === entry.fetchNumber) publish(entry, answered(sameOrNew(entry.state.data, data)));
      },
      (error: unknown) => {
        if (number === entry.fetchNumber) publish(entry, { status: 'error', isPending: false, isError: true, data: entry.state.data, error });
      },
    );
    entry.fetching = fetching;
    void fetching.finally(() => {
      if (entry.fetching === fetching) entry.fetching = null;
    });
  }

  const refetchShown = (matches: (entry: Entry) => boolean, restart: boolean) => {
    for (const entry of entries.values()) if (entry.enabledObservers > 0 && matches(entry)) refetch(entry, restart);
  };
  // As TanStack Query does, what is shown is asked for again once the browser is back online.
  if (typeof window !== 'undefined') window.addEventListener('online', () => refetchShown(() => true, false));

  const cache: PageQueryCache = {
    invalidate(key) {
      const parts = key.map((part) => JSON.stringify(part));
      refetchShown((entry) => parts.every((part, index) => entry.parts[index] === part), true);
    },
    setData(key, data) {
      // Nothing shows a key without an entry: the next page to show it asks for it anyway.
      const entry = entries.get(JSON.stringify(key));
      if (entry) publish(entry, answered(sameOrNew(entry.state.data, data)));
    },
  };

  return {
    useQuery: function useStoreQuery<T>({ key, fetch, enabled = true, initialData, refetchInterval }: PageQueryOptions<T>): PageQuery<T> {
      const entry = entryFor(JSON.stringify(key), key, initialData);
      const state = useSyncExternalStore(entry.subscribe, entry.snapshot) as PageQuery<T>;
      useEffect(() => {
        entry.fetch = fetch;
      });
      useEffect(() => {
        if (!enabled) return;
        entry.enabledObservers += 1;
        refetch(entry, false);
        return () => {
          entry.enabledObservers -= 1;
        };
      }, [entry, enabled]);
      const interval = enabled && refetchInterval ? refetchInterval(state.data) : false;
      useEffect(() => {
        if (interval === false || interval <= 0) return;
        const timer = setInterval(() => {
          if (document.visibilityState !== 'hidden') refetch(entry, false);
        }, interval);
        return () => clearInterval(timer);
        // Started again at every answer, as TanStack Query's interval is.
      }, [entry, interval, state]);
      return state;
    },
    useCache: () => cache,
  };
}
