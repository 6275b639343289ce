import { useQuery } from '@tanstack/react-query';
import type { CreateMessageResponse, FinderDetails, FinderTokenResponse, Message, ShareLocationBody } from '@homing/contracts';

import type { ApiClient } from '../../lib/api-client';
import { useApi } from '../../lib/api-context';
import { newIdempotencyKey } from '../../lib/idempotency-key';
import { finderHeaders } from './finder-token';

// The finder page's calls of product spec §7 (and ARCHITECTURE §8: a finder is known by X-Finder-Token).

const path = (code: string, rest = '') => `/items/${encodeURIComponent(code)}${rest}`;

export const messageKeys = {
  unread: (code: string) => ['found', code, 'unread'] as const,
  finderDetails: (code: string) => ['found', code, 'finder-details'] as const,
};

export function useUnreadCount(code: string, enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: messageKeys.unread(code), queryFn: () => api.request<number>('GET', `/user/items/${encodeURIComponent(code)}/unread-count`), enabled });
}

/** Whether the owner's reply reaches the finder of `conversationId` (the latest finder without it) by e-mail. */
export function useFinderDetails(code: string, conversationId: string | undefined, enabled: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: [...messageKeys.finderDetails(code), conversationId ?? 'latest'],
    queryFn: () => api.request<FinderDetails>('GET', path(code, '/finder-details'), { query: { conversation_id: conversationId } }),
    enabled,
  });
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

/** A finder shares where they found the item: an entry of their conversation, rounded by the server as it was previewed. */
export function shareLocation(api: ApiClient, code: string, location: ShareLocationBody, finderToken: string) {
  return api.request<{ message: Message }>('POST', path(code, '/location'), { body: location, headers: finderHeaders(finderToken) });
}

/** A finder deletes their conversation: their messages, address and tokens are erased (204); their token then stops working. */
export function forgetConversation(api: ApiClient, code: string, finderToken: string) {
  return api.request<void>('DELETE', path(code, '/conversation'), { headers: finderHeaders(finderToken) });
}

export function resetItem(api: ApiClient, code: string) {
  return api.request<void>('POST', `/user/items/${encodeURIComponent(code)}/reset`);
}

/** A resume link's token (from a finder's e-mail) for a finder token of their conversation, for this browser. */
export function resumeFinder(api: ApiClient, code: string, token: string) {
  return api.request<FinderTokenResponse>('POST', path(code, '/finder-resume'), { body: { token } });
}

/** Asks for a link to the finder's conversation by e-mail; answered alike whether or not the address wrote. */
export function requestResumeLink(api: ApiClient, code: string, email: string) {
  return api.request<{ message: string }>('POST', path(code, '/resume-link'), { body: { email } });
}
