import { describe, expect, it } from 'vitest';
import type { Message } from '@homing/contracts';

import { mergeMessages, pollWatermark } from './use-thread';

const message = (id: number, version = id, readAt: string | null = null): Message => ({
  id,
  conversation_id: '0190a000-0000-7000-8000-000000000001',
  author: 'finder',
  content: `message ${id}`,
  created_at: '2026-11-20T11:57:00Z',
  is_read: readAt !== null,
  delivered_at: null,
  read_at: readAt,
  version,
});

describe('the thread’s polls', () => {
  it('start after the highest version seen, so a changed receipt comes back once', () => {
    expect(pollWatermark([])).toBe(0);
    expect(pollWatermark([message(3), message(5)])).toBe(5);
    expect(pollWatermark([message(3, 9), message(5)])).toBe(9);
  });

  it('replace a message whose receipts changed', () => {
    const merged = mergeMessages([message(3), message(5)], [message(3, 9, '2026-11-20T11:59:00Z')]);
    expect(merged.map((m) => [m.id, m.read_at])).toEqual([
      [3, '2026-11-20T11:59:00Z'],
      [5, null],
    ]);
  });
});
