import { useCallback, useEffect, useRef, useState } from 'react';
import type { Message } from '@homing/contracts';

import { ApiError } from '../../lib/api-transport';
import { useApi } from '../../lib/api-context';
import { useUserActive } from './activity-tracker';
import { listMessages } from './api';
import { finderHeaders } from './finder-token';
import { canStream, followMessages } from './message-stream';

// Product spec §9: messages reload every 3 seconds while the user is active.
export const MESSAGE_REFRESH_MS = 3000;

export interface Thread {
  messages: Message[];
  status: 'loading' | 'ready' | 'error';
  error: unknown;
  add(message: Message): void;
  clear(): void;
  /** Asks for what changed at once, not at the next poll (messages shown unmasked once both sides agreed). */
  refresh(): void;
}

/** Messages in id order, each once: the stream, the polls and the sender's own answer may all bring the same one. */
export function mergeMessages(current: readonly Message[], incoming: readonly Message[]): Message[] {
  const byId = new Map(current.map((message) => [message.id, message]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/**
 * Where the next poll starts (`after=`): the highest version seen, which rises with every message and every change of
 * a message's receipts, so a receipt that changed (delivered, read) comes back once and then polls are empty again.
 */
export function pollWatermark(messages: readonly Message[]): number {
  let watermark = 0;
  for (const message of messages) watermark = Math.max(watermark, message.id, message.version ?? 0);
  return watermark;
}

/**
 * An item's thread as the caller may read it, kept current by the server's event stream where the browser can read
 * one, and by polling with `after=` every 3 s while the user is active (the stream may be cut by a proxy).
 * `onForbidden`: a finder token the server no longer knows (the owner reset the item, or the finder deleted their
 * conversation in another browser). `onFinderLeft`: for the owner, a finder deleted their conversation (its id);
 * that finder's messages are dropped from the thread at once.
 */
export function useThread(code: string, finderToken: string | null, enabled: boolean, onForbidden?: () => void, onFinderLeft?: (conversationId: string) => void): Thread {
  const api = useApi();
  const active = useUserActive();
  const [messages, setMessages] = useState<Message[]>([]);
  const [status, setStatus] = useState<Thread['status']>('loading');
  const [error, setError] = useState<unknown>(null);
  const lastId = useRef(0);
  // The stream resumes after the newest message it knows (Last-Event-ID), not after a receipt's version.
  const lastMessageId = useRef(0);
  const forbidden = useRef(onForbidden);
  forbidden.current = onForbidden;
  const finderLeft = useRef(onFinderLeft);
  finderLeft.current = onFinderLeft;

  const add = useCallback((message: Message) => setMessages((current) => mergeMessages(current, [message])), []);
  const clear = useCallback(() => {
    lastId.current = 0;
    lastMessageId.current = 0;
    setMessages([]);
  }, []);

  useEffect(() => {
    lastId.current = pollWatermark(messages);
    lastMessageId.current = messages.at(-1)?.id ?? 0;
  }, [messages]);

  const failed = useCallback((cause: unknown) => {
    if (cause instanceof ApiError && cause.status === 403) forbidden.current?.();
    else {
      setError(cause);
      setStatus('error');
    }
  }, []);

  useEffect(() => {
    if (!enabled) return;
    let cancelled = false;
    setStatus('loading');
    listMessages(api, code, finderToken).then(
      (loaded) => {
        if (cancelled) return;
        setMessages(loaded);
        setStatus('ready');
      },
      (cause: unknown) => {
        if (!cancelled) failed(cause);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, code, finderToken, enabled, failed]);

  const ready = enabled && status === 'ready';

  useEffect(() => {
    if (!ready || !canStream()) return;
    return followMessages(api, code, finderHeaders(finderToken), () => lastMessageId.current, {
      onMessage: add,
      onCleared: () => {
        clear();
        // A reset ends a finder's conversation: their token is dead.
        if (finderToken) forbidden.current?.();
      },
      onFinderLeft: (conversationId) => {
        if (finderToken) {
          forbidden.current?.();
          return;
        }
        setMessages((current) => current.filter((message) => !(message.author === 'finder' && message.conversation_id === conversationId)));
        finderLeft.current?.(conversationId);
      },
    });
  }, [api, code, finderToken, ready, add, clear]);

  useEffect(() => {
    if (!ready || !active) return;
    const timer = setInterval(() => {
      listMessages(api, code, finderToken, lastId.current).then(
        (newer) => {
          if (newer.length > 0) setMessages((current) => mergeMessages(current, newer));
        },
        (cause: unknown) => {
          if (cause instanceof ApiError && cause.status === 403) forbidden.current?.();
          // Other failures: the next poll tries again.
        },
      );
    }, MESSAGE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [api, code, finderToken, ready, active]);

  // The server raises the version of every message it now shows differently, so `after=` brings them again.
  const refresh = useCallback(() => {
    listMessages(api, code, finderToken, lastId.current).then(
      (newer) => {
        if (newer.length > 0) setMessages((current) => mergeMessages(current, newer));
      },
      // The next poll tries again.
      () => undefined,
    );
  }, [api, code, finderToken]);

  return { messages, status, error, add, clear, refresh };
}
