import { renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import type { Message } from '@homing/contracts';

import { ApiClient } from '../../lib/api-client';
import { ApiProvider } from '../../lib/api-context';
import { callsTo, gateway } from '../../testing/gateway';
import { jsonResponse } from '../../testing/render-app';
import { useMarkLiveMessagesRead } from './use-live-read';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const MESSAGES = `/api/v1/items/${CODE}/messages`;
const message = (id: number, overrides: Partial<Message> = {}): Message => ({
  id,
  conversation_id: '0190a000-0000-7000-8000-000000000001',
  author: 'finder',
  content: `message ${id}`,
  created_at: new Date().toISOString(),
  is_read: false,
  delivered_at: null,
  read_at: null,
  version: id,
  ...overrides,
});

function setUp(initial: Message[]) {
  const fetch = gateway({ [`GET ${MESSAGES}`]: () => jsonResponse(200, []) });
  const api = new ApiClient({ fetch, storage: null, sleep: () => Promise.resolve() });
  const wrapper = ({ children }: { children: ReactNode }) => <ApiProvider api={api}>{children}</ApiProvider>;
  const hook = renderHook(({ messages, ready }: { messages: Message[]; ready: boolean }) => useMarkLiveMessagesRead(CODE, messages, ready), {
    wrapper,
    initialProps: { messages: initial, ready: true },
  });
  return { fetch, hook };
}

describe('marking read what the owner saw arrive live', () => {
  it('reads the thread again from just before a finder message that came live, which marks it read', async () => {
    const loaded = [message(1), message(2, { author: 'owner', is_read: true })];
    const { fetch, hook } = setUp(loaded);
    expect(callsTo(fetch, 'GET', MESSAGES)).toHaveLength(0);

    hook.rerender({ messages: [...loaded, message(5)], ready: true });
    await waitFor(() => expect(callsTo(fetch, 'GET', MESSAGES)).toHaveLength(1));
    expect(new URL(String(callsTo(fetch, 'GET', MESSAGES)[0][0]), 'http://x').searchParams.get('after')).toBe('4');

    // The owner's own reply needs no marking, nor does a message already marked.
    hook.rerender({ messages: [...loaded, message(5), message(6, { author: 'owner', is_read: true })], ready: true });
    hook.rerender({ messages: [...loaded, message(5), message(6, { author: 'owner', is_read: true })], ready: true });
    expect(callsTo(fetch, 'GET', MESSAGES)).toHaveLength(1);
  });

  it('waits for the page to be in view before marking', async () => {
    const { fetch, hook } = setUp([message(1)]);
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
    hook.rerender({ messages: [message(1), message(3)], ready: true });
    expect(callsTo(fetch, 'GET', MESSAGES)).toHaveLength(0);

    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
    document.dispatchEvent(new Event('visibilitychange'));
    await waitFor(() => expect(callsTo(fetch, 'GET', MESSAGES)).toHaveLength(1));
  });
});
