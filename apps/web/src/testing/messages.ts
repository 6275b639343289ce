import type { Message } from '@homing/contracts';

/** A message of one conversation as the gateway lists it, read, sent just now; `id` is also its version. */
export function threadMessage(id: number, author: Message['author'], content: string): Message {
  return {
    id,
    conversation_id: '0190a000-0000-7000-8000-000000000001',
    author,
    content,
    created_at: new Date().toISOString(),
    is_read: true,
    delivered_at: null,
    read_at: null,
    version: id,
  };
}
