import type { EntityManager } from 'typeorm';
import type { IdempotencyKeys, OutboxWriter } from '@homing/platform';
import type { ItemOwner, ItemOwnersRepository } from '../item-owners/item-owners.repository';
import type { ConversationRow, ConversationsRepository, MessageRow } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import { hashFinderToken } from './finder-tokens';
import { finderLabels, threadCaller, toMessage } from './thread';

const OWNER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const STRANGER = '5d1c4e7a-2b8f-4c3d-9e6a-7f0b1a2c3d4e';
const CODE = 'ABCDEFGHJKMNPQRS';
const TOKEN = 'AAAAAAAAAAAAAAAAAAAAAA';
const manager = {} as EntityManager;
const item: ItemOwner = { itemCode: CODE, ownerUserId: OWNER, claimedAt: new Date('2026-01-01T00:00:00Z') };

const conversation = (id: string, createdAt: string, extra: Partial<ConversationRow> = {}): ConversationRow => ({
  id,
  item_code: CODE,
  finder_email: null,
  created_at: new Date(createdAt),
  last_message_at: null,
  ...extra,
});
const first = conversation('11111111-1111-4111-8111-111111111111', '2026-01-02T00:00:00Z');
const second = conversation('22222222-2222-4222-8222-222222222222', '2026-01-03T00:00:00Z');
const message = (id: number, author: 'finder' | 'owner', conversationId = first.id, readAt: Date | null = null): MessageRow => ({
  id,
  conversation_id: conversationId,
  author,
  content: `message ${id}`,
  created_at: new Date('2026-01-04T00:00:00Z'),
  read_at: readAt,
});

function setUp({ owner = item as ItemOwner | null, byToken = null as ConversationRow | null, latest = null as ConversationRow | null, conversations = [] as ConversationRow[], messages = [] as MessageRow[] } = {}) {
  const repository = {
    transaction: jest.fn((work: (m: EntityManager) => Promise<unknown>) => work(manager)),
    findByFinderToken: jest.fn(async () => byToken),
    findLatest: jest.fn(async () => latest),
    findInItem: jest.fn(async () => null),
    findByItem: jest.fn(async () => conversations),
    findMessages: jest.fn(async () => messages),
    markFinderMessagesRead: jest.fn(),
    insertConversation: jest.fn(async () => second),
    insertMessage: jest.fn(async (_: EntityManager, written: { conversationId: string; author: 'finder' | 'owner' }) => message(7, written.author, written.conversationId)),
    setFinderEmail: jest.fn(),
    deleteByItem: jest.fn(),
    nextThreadVersion: jest.fn(async () => 9),
    latestMessageId: jest.fn(async () => 5),
  };
  const itemOwners = { findByCode: jest.fn(async () => owner) };
  const outbox = { record: jest.fn() };
  const idempotencyKeys = { run: jest.fn((_: unknown, work: (m: EntityManager) => Promise<unknown>) => work(manager)) };
  const service = new ConversationsService(
    repository as unknown as ConversationsRepository,
    itemOwners as unknown as ItemOwnersRepository,
    outbox as unknown as OutboxWriter,
    idempotencyKeys as unknown as IdempotencyKeys,
  );
  return { service, repository, outbox, idempotencyKeys };
}

const post = (overrides: Partial<Parameters<ConversationsService['postMessage']>[0]> = {}) => ({ code: CODE, content: 'Found your keys', viewerUserId: null, ...overrides });

describe('ConversationsService', () => {
  it('opens a conversation for a finder without a token, answers its token, and records the message’s event', async () => {
    const { service, repository, outbox } = setUp();
    const answer = await service.postMessage(post());
    expect(answer.finder_token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(repository.insertConversation).toHaveBeenCalledWith(manager, { itemCode: CODE, finderTokenHash: hashFinderToken(answer.finder_token as string), finderEmail: null });
    expect(answer.message).toMatchObject({ id: 7, author: 'finder', conversation_id: second.id, is_read: false });
    expect(outbox.record).toHaveBeenCalledWith(
      manager,
      'messaging.message.created.v1',
      { itemCode: CODE, conversationId: second.id, messageId: 7, author: 'finder', ownerUserId: OWNER },
      { aggregateId: CODE, version: 7 },
    );
  });

  it('writes a finder with a token into their own conversation, with no new token', async () => {
    const { service, repository } = setUp({ byToken: first });
    const answer = await service.postMessage(post({ finderToken: TOKEN }));
    expect(repository.findByFinderToken).toHaveBeenCalledWith(CODE, hashFinderToken(TOKEN));
    expect(repository.insertConversation).not.toHaveBeenCalled();
    expect(answer).toEqual({ message: expect.objectContaining({ conversation_id: first.id }) });
  });

  it('refuses the owner’s first message, and answers the latest finder once there is one', async () => {
    const lonely = setUp();
    await expect(lonely.service.postMessage(post({ viewerUserId: OWNER }))).rejects.toMatchObject({ body: { status: 403, response_code: 'CANNOT_FIND_YOUR_OWN_ITEM' } });
    expect(lonely.outbox.record).not.toHaveBeenCalled();
    await expect(lonely.service.setFinder({ code: CODE, email: 'me@example.test', viewerUserId: OWNER })).rejects.toMatchObject({ body: { status: 403 } });

    const found = setUp({ latest: second });
    const reply = await found.service.postMessage(post({ viewerUserId: OWNER }));
    expect(reply.message).toMatchObject({ author: 'owner', conversation_id: second.id, is_read: true });
    expect(reply).not.toHaveProperty('finder_token');
  });

  it('answers an unknown or not yet activated item as missing', async () => {
    const { service } = setUp({ owner: null });
    for (const attempt of [service.postMessage(post()), service.listMessages({ code: CODE, viewerUserId: null }), service.unreadCount('not-a-code', OWNER)]) {
      await expect(attempt).rejects.toMatchObject({ body: { status: 404, response_code: 'ITEM_NOT_FOUND' } });
    }
  });

  it('answers another person’s item as missing to owner-only calls', async () => {
    const { service } = setUp();
    await expect(service.reset(CODE, STRANGER)).rejects.toMatchObject({ body: { status: 404, response_code: 'ITEM_NOT_FOUND' } });
    await expect(service.finderDetails(CODE, STRANGER)).rejects.toMatchObject({ body: { status: 404 } });
  });

  it('shows a stranger nothing, a finder their conversation, and the owner everything, marking finders’ messages read', async () => {
    const stranger = setUp();
    await expect(stranger.service.listMessages({ code: CODE, viewerUserId: STRANGER, finderToken: TOKEN })).rejects.toMatchObject({ body: { status: 403, response_code: 'FORBIDDEN' } });

    const finder = setUp({ byToken: first, messages: [message(3, 'finder')] });
    await finder.service.listMessages({ code: CODE, viewerUserId: null, finderToken: TOKEN, after: 2 });
    expect(finder.repository.findMessages).toHaveBeenCalledWith([first.id], 2);
    expect(finder.repository.markFinderMessagesRead).not.toHaveBeenCalled();

    const owner = setUp({ conversations: [first, second], messages: [message(3, 'finder'), message(4, 'owner'), message(5, 'finder', second.id)] });
    const thread = await owner.service.listMessages({ code: CODE, viewerUserId: OWNER });
    expect(thread.map((m) => [m.id, m.finder, m.is_read])).toEqual([
      [3, 'Finder 1', false],
      [4, 'Finder 1', true],
      [5, 'Finder 2', false],
    ]);
    expect(owner.repository.markFinderMessagesRead).toHaveBeenCalledWith(CODE, 5);
  });

  it('tells the gateway who may read a thread, where its stream starts, and refuses a stranger as reading does', async () => {
    const { service } = setUp({ byToken: first });
    await expect(service.threadAccess({ code: CODE, viewerUserId: OWNER })).resolves.toEqual({ itemCode: CODE, conversationId: null, latestMessageId: 5 });
    await expect(service.threadAccess({ code: CODE, viewerUserId: null, finderToken: TOKEN })).resolves.toEqual({ itemCode: CODE, conversationId: first.id, latestMessageId: 5 });
    await expect(setUp().service.threadAccess({ code: CODE, viewerUserId: STRANGER })).rejects.toMatchObject({ body: { status: 403, response_code: 'FORBIDDEN' } });
    await expect(setUp({ owner: null }).service.threadAccess({ code: CODE, viewerUserId: OWNER })).rejects.toMatchObject({ body: { status: 404, response_code: 'ITEM_NOT_FOUND' } });
  });

  it('answers a stream’s fetch with every conversation’s new messages as the owner sees them, marking nothing read', async () => {
    const { service, repository } = setUp({ conversations: [first, second], messages: [message(3, 'finder', second.id)] });
    await expect(service.messagesAfter(CODE, 2)).resolves.toEqual([toMessage(message(3, 'finder', second.id), finderLabels([first, second]))]);
    expect(repository.findMessages).toHaveBeenCalledWith([first.id, second.id], 2);
    expect(repository.markFinderMessagesRead).not.toHaveBeenCalled();
  });

  it('clears an item’s conversations and records it with a version after every message so far', async () => {
    const { service, repository, outbox } = setUp();
    await service.reset(CODE, OWNER);
    expect(repository.deleteByItem).toHaveBeenCalledWith(manager, CODE);
    expect(outbox.record).toHaveBeenCalledWith(manager, 'messaging.conversation.cleared.v1', { itemCode: CODE, ownerUserId: OWNER }, { aggregateId: CODE, version: 9 });
  });

  it('keys a retried first message by the item, since the finder has no token yet', async () => {
    const { service, idempotencyKeys } = setUp();
    await service.postMessage(post({ idempotencyKey: 'k1' }));
    expect(idempotencyKeys.run).toHaveBeenCalledWith(expect.objectContaining({ caller: `item:${CODE}`, key: 'k1' }), expect.any(Function));
  });
});

describe('a thread', () => {
  it('knows the owner by their account even with a finder token, and a finder only by a token of this item', () => {
    expect(threadCaller(OWNER, OWNER, first)).toEqual({ role: 'owner' });
    expect(threadCaller(OWNER, STRANGER, first)).toEqual({ role: 'finder', conversation: first });
    expect(threadCaller(OWNER, STRANGER, null)).toEqual({ role: 'stranger' });
    expect(threadCaller(OWNER, null, null)).toEqual({ role: 'stranger' });
  });

  it('labels finders only when there is more than one', () => {
    expect(finderLabels([first]).size).toBe(0);
    expect(toMessage(message(1, 'finder'), finderLabels([first]))).not.toHaveProperty('finder');
    const labels = finderLabels([second, first]);
    expect([labels.get(first.id), labels.get(second.id)]).toEqual(['Finder 1', 'Finder 2']);
  });
});
