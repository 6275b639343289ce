import { useEffect, useRef, useState } from 'react';
import type { Message } from '@homing/contracts';

import { useApi } from '../../lib/api-context';
import { listMessages } from './api';

/**
 * Marks read the finders' messages the owner saw arrive in their open thread. The thread's first read marks what it
 * loads, but a message that comes live (the event stream) is read by nobody, so the unread badge would count it on
 * the owner's next visit. A read from just before it (`after=`) marks it, as the owner's reads of the thread do.
 * Only while the page is in view: a message that arrives in a hidden tab is marked once the owner looks.
 */
export function useMarkLiveMessagesRead(code: string, messages: readonly Message[], ready: boolean): void {
  const api = useApi();
  // Every message up to this id has been read by the owner on the server; null until the first read is in.
  const readUpTo = useRef<number | null>(null);
  const [visible, setVisible] = useState(() => document.visibilityState === 'visible');

  useEffect(() => {
    const changed = () => setVisible(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', changed);
    return () => document.removeEventListener('visibilitychange', changed);
  }, []);

  useEffect(() => {
    if (!ready) return;
    const newest = messages.at(-1)?.id ?? 0;
    if (readUpTo.current === null) {
      readUpTo.current = newest;
      return;
    }
    const since = readUpTo.current;
    const unseen = messages.find((message) => message.id > since && message.author === 'finder' && !message.is_read);
    if (!unseen) {
      readUpTo.current = Math.max(since, newest);
      return;
    }
    if (!visible) return;
    readUpTo.current = newest;
    listMessages(api, code, null, unseen.id - 1).catch(() => {
      // Not marked: the next message or the next look tries again from here.
      readUpTo.current = Math.min(readUpTo.current ?? since, since);
    });
  }, [api, code, messages, ready, visible]);
}
