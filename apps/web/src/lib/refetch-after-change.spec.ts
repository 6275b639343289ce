import { describe, expect, it } from 'vitest';

import { QueryClient, QueryObserver } from '@tanstack/react-query';

import { refetchAfterChange } from './refetch-after-change';

/** A list on a server: each read answers what the list held when the read began, after `delayMs`. */
function slowList(delayMs: number) {
  const items = ['first'];
  const queryFn = () => {
    const read = [...items];
    return new Promise<string[]>((resolve) => setTimeout(() => resolve(read), delayMs));
  };
  return { items, queryFn };
}

describe('refetchAfterChange', () => {
  it('asks a list again whose first fetch, begun before the change, was still on its way', async () => {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const server = slowList(50);
    const observer = new QueryObserver(queryClient, { queryKey: ['list'], queryFn: server.queryFn });
    const unsubscribe = observer.subscribe(() => undefined);
    // The screen opened (first fetch under way), then the user added something, which the server answered at once.
    server.items.push('second');
    await refetchAfterChange(queryClient, { queryKey: ['list'] });
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(queryClient.getQueryData(['list'])).toEqual(['first', 'second']);
    unsubscribe();
    queryClient.clear();
  });

  it('keeps what a plain invalidation does not: with invalidateQueries alone the first fetch’s old answer stays', async () => {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const server = slowList(50);
    const observer = new QueryObserver(queryClient, { queryKey: ['list'], queryFn: server.queryFn });
    const unsubscribe = observer.subscribe(() => undefined);
    server.items.push('second');
    await queryClient.invalidateQueries({ queryKey: ['list'] });
    await new Promise((resolve) => setTimeout(resolve, 120));
    // TanStack Query joined the first fetch: why refetchAfterChange cancels first.
    expect(queryClient.getQueryData(['list'])).toEqual(['first']);
    unsubscribe();
    queryClient.clear();
  });
});
