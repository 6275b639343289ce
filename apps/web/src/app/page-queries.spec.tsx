import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, renderHook, waitFor } from '@testing-library/react';
import { StrictMode, type ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { createPageQueryStore } from '../lib/page-query-store';
import { PageQueriesProvider, usePageQuery, usePageQueryCache, type PageQueries, type PageQueryOptions } from '../lib/page-queries';
import { ApiError } from '../lib/api-transport';
import { createQueryClient } from './provider';
import { tanstackPageQueries } from './tanstack-page-queries';

// The finder's page is the same in both entries, so what it relies on of its queries must be too: every case runs
// against the finder page's own store and against TanStack Query as the app answers them.

interface Thing {
  name: string;
}

/** A call whose answers the test gives, one at a time, in the order asked. */
function calls() {
  const waiting: { resolve(thing: Thing): void; reject(error: unknown): void }[] = [];
  const fetch = vi.fn(() => new Promise<Thing>((resolve, reject) => waiting.push({ resolve, reject })));
  return {
    fetch,
    answer: async (thing: Thing) => act(async () => waiting.shift()?.resolve(thing)),
    fail: async (error: unknown) => act(async () => waiting.shift()?.reject(error)),
  };
}

const engines: [string, () => (props: { children: ReactNode }) => ReactNode][] = [
  [
    'the finder page’s own store',
    () => {
      const queries: PageQueries = createPageQueryStore();
      return ({ children }) => (
        <StrictMode>
          <PageQueriesProvider queries={queries}>{children}</PageQueriesProvider>
        </StrictMode>
      );
    },
  ],
  [
    'TanStack Query',
    () => {
      const client = createQueryClient();
      return ({ children }) => (
        <StrictMode>
          <QueryClientProvider client={client}>
            <PageQueriesProvider queries={tanstackPageQueries}>{children}</PageQueriesProvider>
          </QueryClientProvider>
        </StrictMode>
      );
    },
  ],
];

afterEach(() => {
  vi.useRealTimers();
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
});

describe.each(engines)('the page queries answered by %s', (_name, providers) => {
  /** A query and the cache, as one component of a page reads them. */
  function renderQuery(initial: PageQueryOptions<Thing>) {
    return renderHook((options: PageQueryOptions<Thing>) => ({ query: usePageQuery(options), cache: usePageQueryCache() }), { wrapper: providers(), initialProps: initial });
  }

  it('shows an initial answer at once and asks for it once in the background, as StrictMode mounts twice', async () => {
    const { fetch, answer } = calls();
    const { result } = renderQuery({ key: ['things', 1], fetch, initialData: { name: 'rendered' } });
    expect(result.current.query).toMatchObject({ status: 'success', data: { name: 'rendered' } });
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    await answer({ name: 'asked' });
    await waitFor(() => expect(result.current.query.data).toEqual({ name: 'asked' }));
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('is pending until the first answer; an error is the API’s, and keeps the data an earlier answer brought', async () => {
    const { fetch, answer, fail } = calls();
    const { result } = renderQuery({ key: ['things', 2], fetch });
    expect(result.current.query).toMatchObject({ status: 'pending', isPending: true, data: undefined });
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    await answer({ name: 'first' });
    await waitFor(() => expect(result.current.query).toMatchObject({ status: 'success', isPending: false, isError: false, data: { name: 'first' }, error: null }));

    act(() => result.current.cache.invalidate(['things', 2]));
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    const unavailable = new ApiError('http', 'x', 503, 'SERVICE_UNAVAILABLE');
    await fail(unavailable);
    await waitFor(() => expect(result.current.query).toMatchObject({ status: 'error', isError: true, data: { name: 'first' } }));
    expect(result.current.query.error).toBe(unavailable);
  });

  it('asks nothing while not enabled, and asks once enabled', async () => {
    const { fetch, answer } = calls();
    const { result, rerender } = renderQuery({ key: ['things', 3], fetch, enabled: false });
    await act(async () => undefined);
    expect(fetch).not.toHaveBeenCalled();
    expect(result.current.query.isPending).toBe(true);
    rerender({ key: ['things', 3], fetch, enabled: true });
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    await answer({ name: 'now' });
    await waitFor(() => expect(result.current.query.data).toEqual({ name: 'now' }));
  });

  it('asks again on the interval its answer sets, while the page is visible', async () => {
    vi.useFakeTimers();
    const fetch = vi.fn(async (): Promise<Thing> => ({ name: fetch.mock.calls.length < 3 ? 'open' : 'closed' }));
    // As the conversation's state: asked again every 10 s until the case is closed.
    renderQuery({ key: ['things', 4], fetch, refetchInterval: (thing) => (thing?.name === 'closed' ? false : 10_000) });
    await act(() => vi.advanceTimersByTimeAsync(100));
    expect(fetch).toHaveBeenCalledTimes(1);
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(fetch).toHaveBeenCalledTimes(2);

    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    await act(() => vi.advanceTimersByTimeAsync(30_000));
    expect(fetch).toHaveBeenCalledTimes(2);
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });

    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(fetch).toHaveBeenCalledTimes(3);
    // Answered 'closed': no more asking.
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it('asks again on an invalidation of the key or of keys starting so, and drops the answer of a call it overtook', async () => {
    const { fetch, answer } = calls();
    const { result } = renderQuery({ key: ['things', 5, 'finder'], fetch });
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    await answer({ name: 'first' });
    await waitFor(() => expect(result.current.query.data).toEqual({ name: 'first' }));

    act(() => result.current.cache.invalidate(['things', 5]));
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    act(() => result.current.cache.invalidate(['things', 5, 'finder']));
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(3));
    await answer({ name: 'overtaken' });
    await answer({ name: 'latest' });
    await waitFor(() => expect(result.current.query.data).toEqual({ name: 'latest' }));
    expect(result.current.query.data).not.toEqual({ name: 'overtaken' });

    act(() => result.current.cache.invalidate(['other things']));
    await act(async () => undefined);
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it('shows data set for the key, without asking', async () => {
    const { fetch, answer } = calls();
    const { result } = renderQuery({ key: ['things', 6], fetch });
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    await answer({ name: 'asked' });
    await waitFor(() => expect(result.current.query.data).toEqual({ name: 'asked' }));
    act(() => result.current.cache.setData(['things', 6], { name: 'set' }));
    await waitFor(() => expect(result.current.query.data).toEqual({ name: 'set' }));
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('keeps the data of an answer that is the same again, so what depends on it is not redone', async () => {
    const fetch = vi.fn(async (): Promise<Thing> => ({ name: 'same' }));
    const { result } = renderQuery({ key: ['things', 7], fetch });
    await waitFor(() => expect(result.current.query.data).toEqual({ name: 'same' }));
    const first = result.current.query.data;
    act(() => result.current.cache.invalidate(['things', 7]));
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    await act(async () => undefined);
    expect(result.current.query.data).toBe(first);
  });

  it('forgets what nothing shows any more when asked to, and asks for it afresh when shown again', async () => {
    const fetch = vi.fn(async (): Promise<Thing> => ({ name: `answer ${fetch.mock.calls.length}` }));
    const options: PageQueryOptions<Thing> = { key: ['things', 8], fetch, dropWhenUnused: true };
    let seen: Thing | 'pending' | undefined;
    function Shown() {
      const query = usePageQuery(options);
      seen = query.isPending ? 'pending' : query.data;
      return null;
    }
    // One set of providers for both showings, as a page left and shown again has.
    const Providers = providers();
    const page = render(<Providers>{<Shown />}</Providers>);
    await waitFor(() => expect(seen).toEqual({ name: 'answer 1' }));
    page.rerender(<Providers>{null}</Providers>);
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));
    page.rerender(<Providers>{<Shown />}</Providers>);
    expect(seen).toBe('pending');
    await waitFor(() => expect(seen).toEqual({ name: 'answer 2' }));
  });
});
