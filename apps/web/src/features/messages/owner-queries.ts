import { useQuery } from '@tanstack/react-query';
import type { FinderDetails, HandoverCode } from '@homing/contracts';

import { useApi } from '../../lib/api-context';
import { messageKeys, threadPath } from './api';

// The owner's queries of their thread, with TanStack Query as the app's other screens: apart from api.ts, which the
// finder page's own entry loads without TanStack Query.

export function useUnreadCount(code: string, enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: messageKeys.unread(code), queryFn: () => api.request<number>('GET', `/user/items/${encodeURIComponent(code)}/unread-count`), enabled });
}

/** Whether the owner's reply reaches the finder of `conversationId` (the latest finder without it) by e-mail. */
export function useFinderDetails(code: string, conversationId: string | undefined, enabled: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: [...messageKeys.finderDetails(code), conversationId ?? 'latest'],
    queryFn: () => api.request<FinderDetails>('GET', threadPath(code, '/finder-details'), { query: { conversation_id: conversationId } }),
    enabled,
  });
}

/** The owner's hand-over code of the day, which the finder asks for before handing the item over. */
export function useHandoverCode(code: string, enabled: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: messageKeys.handoverCode(code),
    queryFn: () => api.request<HandoverCode>('GET', `/user/items/${encodeURIComponent(code)}/handover-code`),
    enabled,
    // A new code each UTC day: asked again when the shown one runs out.
    refetchInterval: (query) => (query.state.data ? Math.max(60_000, Date.parse(query.state.data.valid_until) - Date.now()) : false),
  });
}
