import { useQuery } from '@tanstack/react-query';
import type { CreateMessageResponse, FinderDetails, FinderTokenResponse, Message, PublicItem } from '@homing/contracts';

import type { ApiClient } from '../../lib/api-client';
import { useApi } from '../../lib/api-context';
import { newIdempotencyKey } from '../../lib/idempotency-key';
import { finderHeaders } from './finder-token';

// The finder page's calls of product spec §7 (and ARCHITECTURE §8: a finder is known by X-Finder-Token).

const path = (code: string, rest = '') => `/items/${encodeURIComponent(code)}${rest}`;

export const messageKeys = {
  item: (code: string) => ['found', code, 'item'] as const,
  unread: (code: string) => ['found', code, 'unread'] as const,
  finderDetails: (code: string) => ['found', code, 'finder-details'] as const,
};

/** What anyone who scans the tag may see; the answer says whether the caller owns it. */
export function usePublicItem(code: string) {
  const api = useApi();
  // Not kept between visits: a tag activated or renamed meanwhile must not be shown as it was (gcTime 0).
  return useQuery({ queryKey: messageKeys.item(code), queryFn: () => api.request<PublicItem>('GET', path(code)), gcTime: 0 });
}

export function useUnreadCount(code: string, enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: messageKeys.unread(code), queryFn: () => api.request<number>('GET', `/user/items/${encodeURIComponent(code)}/unread-count`), enabled });
}

export function useFinderDetails(code: string, enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: messageKeys.finderDetails(code), queryFn: () => api.request<FinderDetails>('GET', path(code, '/finder-details')), enabled });
}

export function listMessages(api: ApiClient, code: string, finderToken: string | null, after?: number) {
  return api.request<Message[]>('GET', path(code, '/messages'), { headers: finderHeaders(finderToken), query: { after } });
}

export function setFinder(api: ApiClient, code: string, email: string, finderToken: string | null) {
  return api.request<FinderTokenResponse>('POST', path(code, '/set-finder'), { body: { email }, headers: finderHeaders(finderToken) });
}

/** Writes a message; the owner may name the conversation they answer (else the server picks the latest finder's). */
export function postMessage(api: ApiClient, code: string, content: string, finderToken: string | null, conversationId?: string) {
  const body = conversationId ? { content, conversation_id: conversationId } : { content };
  // The key makes a retried POST (network error) write the message once.
  return api.request<CreateMessageResponse>('POST', path(code, '/messages'), { body, headers: finderHeaders(finderToken), idempotencyKey: newIdempotencyKey() });
}

export function resetItem(api: ApiClient, code: string) {
  return api.request<void>('POST', `/user/items/${encodeURIComponent(code)}/reset`);
}
