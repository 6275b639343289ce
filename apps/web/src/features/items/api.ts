import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type {
  ClaimResponse,
  FoundItems,
  Invitation,
  InvitationAccepted,
  InvitationSent,
  ItemNotificationSettings,
  ItemNotificationSettingsBody,
  ItemPeople,
  PublicItem,
  ScanHistory,
  UpdateItemBody,
} from '@homing/contracts';

import { useApi } from '../../lib/api-context';
import { newIdempotencyKey } from '../../lib/idempotency-key';
import { refetchAfterChange } from '../../lib/refetch-after-change';

// The owner's item calls of product spec §7, with their TanStack Query keys.

export const itemKeys = {
  owned: ['items', 'owned'] as const,
  one: (code: string) => ['items', 'owned', code] as const,
  found: (codes: readonly string[]) => ['items', 'found', codes.join(',')] as const,
  qr: (code: string) => ['qr', code] as const,
  scans: (code: string) => ['items', 'scans', code] as const,
  people: (code: string) => ['items', 'people', code] as const,
  notifications: (code: string) => ['items', 'notifications', code] as const,
  invitation: (token: string) => ['invitations', token] as const,
};

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
    onSuccess: () => refetchAfterChange(queryClient, { queryKey: itemKeys.owned }),
  });
}

export function useUpdateItem(code: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: UpdateItemBody) => api.request<PublicItem>('PATCH', `/user/items/${encodeURIComponent(code)}`, { body: changes }),
    onSuccess: (item) => {
      queryClient.setQueryData(itemKeys.one(code), item);
      return refetchAfterChange(queryClient, { queryKey: itemKeys.owned, exact: true });
    },
  });
}

export function useDeleteItem(code: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.request<void>('DELETE', `/user/items/${encodeURIComponent(code)}`),
    // A refetch of the item still on its way would come back 404 and turn the page into "not found" under the
    // confirmation. The item itself is forgotten once its page is left (forgetItem).
    onMutate: () => queryClient.cancelQueries({ queryKey: itemKeys.one(code) }),
    onSuccess: () => dropFromOwnedList(queryClient, code),
  });
}

/** An item that is no longer the user's leaves their cached list at once; the list is asked for again when next shown. */
function dropFromOwnedList(queryClient: QueryClient, code: string) {
  queryClient.setQueryData<PublicItem[]>(itemKeys.owned, (items) => items?.filter((item) => item.code !== code));
  // Not refetchAfterChange: cancelling a refetch under way would bring the item back until the list came again.
  return queryClient.invalidateQueries({ queryKey: itemKeys.owned, exact: true });
}

/**
 * Drops what the cache holds of an item that is no longer the user's (deleted, or left as a co-owner), as its page
 * unmounts and not sooner: a query dropped while a page still shows it is built afresh at that page's next render, so
 * the page would ask for the item, its people and settings again, meet 404s and unmount the confirmation that was
 * moving on.
 */
export function forgetItem(queryClient: QueryClient, code: string) {
  for (const queryKey of [itemKeys.one(code), itemKeys.people(code), itemKeys.notifications(code), itemKeys.scans(code)]) {
    queryClient.removeQueries({ queryKey });
  }
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

const itemPath = (code: string) => `/user/items/${encodeURIComponent(code)}`;

/** The item's owner and co-owners, and the invitations still open (to share it, or to take it over). */
export function useItemPeople(code: string) {
  const api = useApi();
  return useQuery({ queryKey: itemKeys.people(code), queryFn: () => api.request<ItemPeople>('GET', `${itemPath(code)}/co-owners`) });
}

/** After a change of the item's people: the list, and the "shared" markers of the item and of My items. */
function usePeopleChanged(code: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      refetchAfterChange(queryClient, { queryKey: itemKeys.people(code) }),
      refetchAfterChange(queryClient, { queryKey: itemKeys.one(code) }),
      refetchAfterChange(queryClient, { queryKey: itemKeys.owned, exact: true }),
    ]);
}

/** The owner invites an address to share the item; the link goes by e-mail only. */
export function useInviteCoOwner(code: string) {
  const api = useApi();
  const changed = usePeopleChanged(code);
  return useMutation({
    mutationFn: (email: string) => api.request<InvitationSent>('POST', `${itemPath(code)}/co-owners`, { body: { email } }),
    onSuccess: changed,
  });
}

/**
 * Removes a person of the item or withdraws an invitation (the owner), or leaves the item (a co-owner, their own id):
 * after leaving, the item is gone for them.
 */
export function useRemovePerson(code: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  const changed = usePeopleChanged(code);
  return useMutation({
    mutationFn: (id: string) => api.request<void>('DELETE', `${itemPath(code)}/co-owners/${encodeURIComponent(id)}`),
    onSuccess: changed,
    onError: () => refetchAfterChange(queryClient, { queryKey: itemKeys.people(code) }),
  });
}

/** The co-owner leaves: the item is no longer theirs, so it is forgotten (forgetItem) rather than asked for again. */
export function useLeaveItem(code: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (yourId: string) => api.request<void>('DELETE', `${itemPath(code)}/co-owners/${encodeURIComponent(yourId)}`),
    // As for a deleted item: the page's own queries are forgotten once the page is left (forgetItem).
    onMutate: () => queryClient.cancelQueries({ queryKey: itemKeys.one(code) }),
    onSuccess: () => dropFromOwnedList(queryClient, code),
  });
}

/** The owner offers the item to another address: it changes hands when they accept by the e-mailed link. */
export function useTransferItem(code: string) {
  const api = useApi();
  const changed = usePeopleChanged(code);
  return useMutation({
    mutationFn: (email: string) => api.request<InvitationSent>('POST', `${itemPath(code)}/transfer`, { body: { email } }),
    onSuccess: changed,
  });
}

/** The owner takes back the offer to hand the item over. */
export function useCancelTransfer(code: string) {
  const api = useApi();
  const changed = usePeopleChanged(code);
  return useMutation({ mutationFn: () => api.request<void>('DELETE', `${itemPath(code)}/transfer`), onSuccess: changed, onError: changed });
}

/** How this person of the item is told about it (e-mail, push): their own settings, not the item's. */
export function useItemNotificationSettings(code: string) {
  const api = useApi();
  return useQuery({ queryKey: itemKeys.notifications(code), queryFn: () => api.request<ItemNotificationSettings>('GET', `${itemPath(code)}/notifications`) });
}

export function useUpdateItemNotificationSettings(code: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: ItemNotificationSettingsBody) => api.request<ItemNotificationSettings>('PATCH', `${itemPath(code)}/notifications`, { body: changes }),
    onSuccess: (settings) => queryClient.setQueryData(itemKeys.notifications(code), settings),
  });
}

/** What an invitation link offers (public). */
export function useInvitation(token: string) {
  const api = useApi();
  return useQuery({
    queryKey: itemKeys.invitation(token),
    queryFn: () => api.request<Invitation>('GET', `/invitations/${encodeURIComponent(token)}`),
    gcTime: 0,
  });
}

/**
 * Accepts an invitation, logged in (for this account) or not (for the invited address). An account made for a new
 * address logs in with its login token, as activation does.
 */
export function useAcceptInvitation(token: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.request<InvitationAccepted>('POST', `/invitations/${encodeURIComponent(token)}/accept`),
    onSuccess: (answer) => {
      if (answer.response_code === 'NEW_USER_REGISTERED' && answer.login_token) api.setToken(answer.login_token);
      return refetchAfterChange(queryClient, { queryKey: itemKeys.owned });
    },
  });
}
