import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ClaimResponse, FoundItems, PublicItem, ScanHistory, UpdateItemBody } from '@homing/contracts';

import type { ApiClient } from '../../lib/api-client';
import { useApi } from '../../lib/api-context';
import { newIdempotencyKey } from '../../lib/idempotency-key';

// The owner's item calls of product spec §7, with their TanStack Query keys.

export const itemKeys = {
  owned: ['items', 'owned'] as const,
  one: (code: string) => ['items', 'owned', code] as const,
  found: (codes: readonly string[]) => ['items', 'found', codes.join(',')] as const,
  qr: (code: string) => ['qr', code] as const,
  scans: (code: string) => ['items', 'scans', code] as const,
};

/** The one key of an item as anyone who scans its tag sees it (the finder page, activation). */
export const publicItemKey = (code: string) => ['items', 'public', code] as const;

/** What anyone who scans the tag may see (`GET /items/{code}`); the answer says whether the caller owns it. */
export function usePublicItem(code: string, initialItem?: PublicItem) {
  const api = useApi();
  // Not kept between visits: a tag activated or renamed meanwhile must not be shown as it was (gcTime 0). An item the
  // page arrived with is shown at once and asked for again in the background (stale from the start).
  return useQuery({
    queryKey: publicItemKey(code),
    queryFn: () => api.request<PublicItem>('GET', `/items/${encodeURIComponent(code)}`),
    gcTime: 0,
    ...(initialItem ? { initialData: initialItem, initialDataUpdatedAt: 0 } : {}),
  });
}

/**
 * Claims a tag (spec §2 and §4). Logged in, the gateway claims with the token's e-mail and ignores the body's. A new
 * user's answer carries a login token: that logs in.
 */
export function useClaimItem() {
  const api = useApi();
  return useMutation({
    mutationFn: (body: { code: string; email?: string }) => api.request<ClaimResponse>('POST', '/claim', { body }),
    onSuccess: (answer) => {
      if (answer.response_code === 'NEW_USER_REGISTERED' && answer.login_token) api.setToken(answer.login_token);
    },
  });
}

export function useOwnedItems() {
  const api = useApi();
  // limit 0 is the gateway's default page (50).
  return useQuery({ queryKey: itemKeys.owned, queryFn: () => api.request<PublicItem[]>('GET', '/user/items', { query: { limit: 0, offset: 0 } }) });
}

/** Which of these items a finder has written about: the 'found' overlay. */
export function useFoundFlags(codes: readonly string[]) {
  const api = useApi();
  return useQuery({
    queryKey: itemKeys.found(codes),
    queryFn: () => api.request<FoundItems>('GET', '/user/found-items', { query: { codes: codes.join(',') } }),
    enabled: codes.length > 0,
  });
}

export function useOwnedItem(code: string | undefined) {
  const api = useApi();
  return useQuery({
    queryKey: itemKeys.one(code ?? ''),
    queryFn: () => api.request<PublicItem>('GET', `/user/items/${encodeURIComponent(code ?? '')}`),
    enabled: !!code,
  });
}

export function useCreateItem() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    // The key makes the POST safe to retry after a network error: the gateway answers a repeat with the first item.
    mutationFn: (body: { name: string; idempotencyKey?: string }) =>
      api.request<PublicItem>('POST', '/items', { body: { name: body.name }, idempotencyKey: body.idempotencyKey ?? newIdempotencyKey() }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: itemKeys.owned }),
  });
}

export function useUpdateItem(code: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: UpdateItemBody) => api.request<PublicItem>('PATCH', `/user/items/${encodeURIComponent(code)}`, { body: changes }),
    onSuccess: (item) => {
      queryClient.setQueryData(itemKeys.one(code), item);
      return queryClient.invalidateQueries({ queryKey: itemKeys.owned, exact: true });
    },
  });
}

export function useDeleteItem(code: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.request<void>('DELETE', `/user/items/${encodeURIComponent(code)}`),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: itemKeys.one(code) });
      return queryClient.invalidateQueries({ queryKey: itemKeys.owned, exact: true });
    },
  });
}

/** Tells the owner's scan history that the tag's page was opened (204); the gateway adds when, where and which device. */
export function recordScan(api: ApiClient, code: string) {
  return api.request<void>('POST', `/items/${encodeURIComponent(code)}/scans`);
}

/** The owner's scans of a tag: the last 30 days, newest first (`GET /user/items/{code}/scans`). */
export function useScanHistory(code: string) {
  const api = useApi();
  return useQuery({ queryKey: itemKeys.scans(code), queryFn: () => api.request<ScanHistory>('GET', `/user/items/${encodeURIComponent(code)}/scans`) });
}

/** The QR image of a tag as base64 SVG text (`/qr/{code}?sizeInPx=400&b64=1`); it never changes, so it is kept. */
export function useQrImage(code: string) {
  const api = useApi();
  return useQuery({
    queryKey: itemKeys.qr(code),
    queryFn: () => api.request<string>('GET', `/qr/${encodeURIComponent(code)}`, { base: '', query: { sizeInPx: 400, b64: 1 }, responseType: 'text' }),
    staleTime: Infinity,
  });
}
