import type { InvalidateQueryFilters, QueryClient } from '@tanstack/react-query';

/**
 * Asks the queries `filters` names again after a change the user made. A query whose first fetch is still on its way
 * would keep that fetch's answer, read perhaps before the change (TanStack Query joins a query's first fetch rather
 * than cancel it; a refetch of a query with data is cancelled): a batch just minted missed from its list until a reload.
 * So each is cancelled first (back to what it was before that fetch), then fetched anew.
 */
export async function refetchAfterChange(queryClient: QueryClient, filters: InvalidateQueryFilters): Promise<void> {
  await queryClient.cancelQueries(filters);
  await queryClient.invalidateQueries(filters);
}
