import type { Message } from '@homing/contracts';

import type { ApiClient } from '../../lib/api-client';
import { ApiError } from '../../lib/api-transport';

export interface StreamEvent {
  event: string;
  id?: string;
  data: string;
}

/** Splits server-sent-event text into events; returns them and the unfinished rest to prepend to the next chunk. */
export function parseEvents(text: string): { events: StreamEvent[]; rest: string } {
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  const events: StreamEvent[] = [];
  for (const block of blocks) {
    const event: StreamEvent = { event: 'message', data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      // A line starting with ':' is a comment (the heartbeat).
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
      else if (field === 'data') data.push(value);
    }
    event.data = data.join('\n');
    if (data.length > 0 || event.event !== 'message') events.push(event);
  }
  return { events, rest };
}

export interface StreamHandlers {
  onMessage(message: Message): void;
  onCleared(): void;
  /** A finder deleted their conversation (`finder-left`): its id. */
  onFinderLeft?(conversationId: string): void;
  /** The stream was refused for good (403, 404): polling alone carries on. */
  onRefused?(error: ApiError): void;
}

const RECONNECT_MS = 3000;

/**
 * Follows `GET /items/{code}/messages/stream` with fetch and a body reader (EventSource cannot send the credentials,
 * which travel in headers). Reconnects with `Last-Event-ID` after a dropped stream. Returns the function that stops.
 */
export function followMessages(api: ApiClient, code: string, headers: Record<string, string> | undefined, lastId: () => number, handlers: StreamHandlers): () => void {
  const controller = new AbortController();
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await api.openStream(`/items/${encodeURIComponent(code)}/messages/stream`, {
          headers: { ...headers, ...(lastId() > 0 ? { 'Last-Event-ID': String(lastId()) } : {}) },
          signal: controller.signal,
        });
        const reader = response.body?.getReader();
        if (!reader) return;
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const { events, rest } = parseEvents(buffer + decoder.decode(value, { stream: true }));
          buffer = rest;
          for (const event of events) {
            if (event.event === 'message') handlers.onMessage(JSON.parse(event.data) as Message);
            else if (event.event === 'cleared') handlers.onCleared();
            else if (event.event === 'finder-left') handlers.onFinderLeft?.((JSON.parse(event.data) as { conversation_id: string }).conversation_id);
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.kind === 'http' && error.status < 500 && error.status !== 429) {
          handlers.onRefused?.(error);
          return;
        }
      }
      if (controller.signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  };
  void run();
  return () => controller.abort();
}

/** Streams need a readable fetch body; older browsers get polling only. */
export function canStream(): boolean {
  return typeof ReadableStream !== 'undefined' && typeof TextDecoder !== 'undefined' && typeof AbortController !== 'undefined';
}
