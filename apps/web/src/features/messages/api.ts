import type {
  ContactConsentBody,
  ConversationState,
  CreateMessageResponse,
  FinderTokenResponse,
  HandoverResult,
  Message,
  ShareLocationBody,
} from '@homing/contracts';

import type { ApiClient } from '../../lib/api-client';
import { useApi } from '../../lib/api-context';
import { newIdempotencyKey } from '../../lib/idempotency-key';
import { usePageQuery } from '../../lib/page-queries';
import { finderHeaders } from './finder-token';

// The finder page's calls of product spec §7 (and ARCHITECTURE §8: a finder is known by X-Finder-Token). The finder
// page's own entry loads this file: its one query goes through the page queries (lib/page-queries.tsx), the owner's
// TanStack queries are in owner-queries.ts.

/** A call on an item's thread, as finders and owners make it: `/items/{code}…`. */
export const threadPath = (code: string, rest = '') => `/items/${encodeURIComponent(code)}${rest}`;

export const messageKeys = {
  unread: (code: string) => ['found', code, 'unread'] as const,
  finderDetails: (code: string) => ['found', code, 'finder-details'] as const,
  /** A finder's own conversation (`finder`), or the owner's conversation of that id (`latest` without one). */
  conversation: (code: string, whose: string) => ['found', code, 'conversation', whose] as const,
  handoverCode: (code: string) => ['found', code, 'handover-code'] as const,
};

// Another side's agreement or a hand-over changes no message of ours: the state is asked again now and then.
export const CONVERSATION_STATE_REFRESH_MS = 10_000;

/** Whose conversation the state is of: the finder's own (their token says which), else the owner's pick. */
export const conversationWhose = (finderToken: string | null, conversationId: string | undefined) => (finderToken ? 'finder' : (conversationId ?? 'latest'));

/**
 * Contact consent and whether the case is closed, for the finder's own conversation or the owner's `conversationId`
 * (the latest without one); asked again while `refresh` and the case is open.
 */
export function useConversationState(code: string, finderToken: string | null, conversationId: string | undefined, enabled: boolean, refresh: boolean) {
  const api = useApi();
  return usePageQuery({
    key: messageKeys.conversation(code, conversationWhose(finderToken, conversationId)),
    fetch: () =>
      api.request<ConversationState>('GET', threadPath(code, '/conversation'), {
        headers: finderHeaders(finderToken),
        query: { conversation_id: finderToken ? undefined : conversationId },
      }),
    enabled,
    refetchInterval: (state) => (refresh && !state?.closed_at ? CONVERSATION_STATE_REFRESH_MS : false),
  });
}

/** Agrees to share contact details, or withdraws while the other side has not agreed yet (409 CONTACT_ALREADY_SHARED after). */
export function setContactConsent(api: ApiClient, code: string, agree: boolean, finderToken: string | null, conversationId?: string) {
  const body: ContactConsentBody = finderToken || !conversationId ? { agree } : { agree, conversation_id: conversationId };
  return api.request<ConversationState>('POST', threadPath(code, '/contact-consent'), { body, headers: finderHeaders(finderToken) });
}

/**
 * The finder closes the case with the code the person in front of them told: 422 for a wrong code, 429 after too many,
 * 409 CONVERSATION_CLOSED when it was closed already. Not retried: a second try would count as a second wrong code.
 */
export function handOver(api: ApiClient, code: string, handoverCode: string, finderToken: string) {
  return api.request<HandoverResult>('POST', threadPath(code, '/handover'), { body: { code: handoverCode }, headers: finderHeaders(finderToken) });
}

export function listMessages(api: ApiClient, code: string, finderToken: string | null, after?: number) {
  return api.request<Message[]>('GET', threadPath(code, '/messages'), { headers: finderHeaders(finderToken), query: { after } });
}

export function setFinder(api: ApiClient, code: string, email: string, finderToken: string | null) {
  return api.request<FinderTokenResponse>('POST', threadPath(code, '/set-finder'), { body: { email }, headers: finderHeaders(finderToken) });
}

/** Writes a message; the owner may name the conversation they answer (else the server picks the latest finder's). */
export function postMessage(api: ApiClient, code: string, content: string, finderToken: string | null, conversationId?: string) {
  const body = conversationId ? { content, conversation_id: conversationId } : { content };
  // The key makes a retried POST (network error) write the message once.
  return api.request<CreateMessageResponse>('POST', threadPath(code, '/messages'), { body, headers: finderHeaders(finderToken), idempotencyKey: newIdempotencyKey() });
}

/** A finder shares where they found the item: an entry of their conversation, rounded by the server as it was previewed. */
export function shareLocation(api: ApiClient, code: string, location: ShareLocationBody, finderToken: string) {
  return api.request<{ message: Message }>('POST', threadPath(code, '/location'), { body: location, headers: finderHeaders(finderToken) });
}

/** A finder deletes their conversation: their messages, address and tokens are erased (204); their token then stops working. */
export function forgetConversation(api: ApiClient, code: string, finderToken: string) {
  return api.request<void>('DELETE', threadPath(code, '/conversation'), { headers: finderHeaders(finderToken) });
}

export function resetItem(api: ApiClient, code: string) {
  return api.request<void>('POST', `/user/items/${encodeURIComponent(code)}/reset`);
}

/** A resume link's token (from a finder's e-mail) for a finder token of their conversation, for this browser. */
export function resumeFinder(api: ApiClient, code: string, token: string) {
  return api.request<FinderTokenResponse>('POST', threadPath(code, '/finder-resume'), { body: { token } });
}

/** Asks for a link to the finder's conversation by e-mail; answered alike whether or not the address wrote. */
export function requestResumeLink(api: ApiClient, code: string, email: string) {
  return api.request<{ message: string }>('POST', threadPath(code, '/resume-link'), { body: { email } });
}
