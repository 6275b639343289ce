import type { DomainEvent } from '@homing/contracts';

// For the unit tests of the consumers of `messaging.message.created.v1`: an item's people, and one of its messages.
export const OWNER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
export const CO_OWNER = '44444444-4444-4444-8444-444444444444';
export const CONVERSATION = '11111111-1111-4111-8111-111111111111';

/** Message 42 of the item ABCDEFGHJKMNPQRS, by its finder or by its owner, as event `id`. */
export const messageCreated = (author: 'finder' | 'owner', id: string): DomainEvent<'messaging.message.created.v1'> =>
  ({
    id,
    subject: 'messaging.message.created.v1',
    occurredAt: '2026-11-25T07:00:00.000Z',
    data: { itemCode: 'ABCDEFGHJKMNPQRS', conversationId: CONVERSATION, messageId: 42, author, ownerUserId: OWNER },
  }) as DomainEvent<'messaging.message.created.v1'>;
