import { useCallback, useEffect, useRef } from 'react';
import type { ConversationState, Message } from '@homing/contracts';

import { usePageQueryCache } from '../../lib/page-queries';
import { useUserActive } from './activity-tracker';
import { conversationWhose, messageKeys, useConversationState } from './api';
import { pollWatermark } from './use-thread';

/**
 * The state of the conversation a thread shows (contact consent, closed), asked again while the user is active and
 * whenever the thread's messages change: the other side agreeing last makes the server bring every message again,
 * unmasked. `stale()` asks again at once.
 */
export function useConversation(
  code: string,
  finderToken: string | null,
  conversationId: string | undefined,
  enabled: boolean,
  messages: readonly Message[],
): { state: ConversationState | undefined; stale(): void } {
  const queries = usePageQueryCache();
  const active = useUserActive();
  const query = useConversationState(code, finderToken, conversationId, enabled, active);
  const whose = conversationWhose(finderToken, conversationId);
  const stale = useCallback(() => queries.invalidate(messageKeys.conversation(code, whose)), [queries, code, whose]);
  const watermark = pollWatermark(messages);
  const seenWatermark = useRef(0);
  useEffect(() => {
    if (seenWatermark.current > 0 && watermark > seenWatermark.current) stale();
    seenWatermark.current = watermark;
  }, [watermark, stale]);
  return { state: enabled ? query.data : undefined, stale };
}
