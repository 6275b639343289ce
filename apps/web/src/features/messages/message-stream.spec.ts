import { describe, expect, it } from 'vitest';

import { parseEvents } from './message-stream';

describe('reading server-sent events', () => {
  it('splits events, skips heartbeats and keeps an unfinished event for the next chunk', () => {
    const { events, rest } = parseEvents(': heartbeat\n\nid: 7\nevent: message\ndata: {"id":7}\n\nevent: cleared\ndata: {}\n\nid: 8\nevent: mess');
    expect(events).toEqual([
      { event: 'message', id: '7', data: '{"id":7}' },
      { event: 'cleared', data: '{}' },
    ]);
    expect(rest).toBe('id: 8\nevent: mess');
  });
});
