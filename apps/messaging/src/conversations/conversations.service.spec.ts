import type { IdempotencyKeys, OutboxWriter, Transaction } from '@homing/platform';
import type { ItemOwner, ItemOwnersRepository } from '../item-owners/item-owners.repository';
import type { ConversationRow, ConversationsRepository, MessageRow, NewMessage } from './conversations.repository';
import type { ReplyAddressesRepository } from '../relay/reply-addresses.repository';
import { ErasedConversations } from './erased-conversations';
import { NewMessages } from './new-messages';
import { ConversationsService } from './conversations.service';
import { hashFinderToken, RESUME_LINK_IDLE_MS, resumeLinkAlive } from './finder-tokens';
import { finderLabels, threadCaller, toMessage } from './thread';

const OWNER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const STRANGER = '5d1c4e7a-2b8f-4c3d-9e6a-7f0b1a2c3d4e';
const CO_OWNER = '7e2d5f8b-3c9a-4d4e-8f7b-8a1c2b3d4e5f';
const CODE = 'ABCDEFGHJKMNPQRS';
const TOKEN = 'AAAAAAAAAAAAAAAAAAAAAA';
const manager = {} as Transaction;
const item: ItemOwner = { itemCode: CODE, ownerUserId: OWNER, coOwnerUserIds: [CO_OWNER], claimedAt: new Date('2026-01-01T00:00:00Z') };

const conversation = (id: string, createdAt: string, extra: Partial<ConversationRow> = {}): ConversationRow => ({
  id,
  item_code: CODE,
  finder_email: null,
  finder_language: 'en',
  created_at: new Date(createdAt),
  last_message_at: null,
  finder_left_at: null,
  finder_consented_at: null,
  owner_consented_at: null,
  closed_at: null,
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
  delivered_at: null,
  receipt_version: null,
  location_lat: null,
  location_lon: null,
  location_accuracy_m: null,
  location_precise: null,
});

function setUp({
  owner = item as ItemOwner | null,
  byToken = null as ConversationRow | null,
  byResumeToken = null as ConversationRow | null,
  byEmail = null as ConversationRow | null,
  byId = null as ConversationRow | null,
  latest = null as ConversationRow | null, conversations = [] as ConversationRow[], messages = [] as MessageRow[] } = {}) {
  const repository = {
    transaction: jest.fn((work: (m: Transaction) => Promise<unknown>) => work(manager)),
    findByFinderToken: jest.fn(async () => byToken),
    findByResumeToken: jest.fn(async () => byResumeToken),
    findLatestByFinderEmail: jest.fn(async () => byEmail),
    findById: jest.fn(async () => byId),
    insertToken: jest.fn(async () => true),
    setFinderLanguage: jest.fn(),
    findLatest: jest.fn(async () => latest),
    findInItem: jest.fn(async (_itemCode: string, _conversationId: string): Promise<ConversationRow | null> => null),
    findByItem: jest.fn(async () => conversations),
    findMessages: jest.fn(async () => messages),
    markFinderMessagesRead: jest.fn(async () => [{ conversationId: first.id, messageIds: [3], version: 8 }]),
    markRepliesRead: jest.fn(async () => [{ conversationId: first.id, messageIds: [4], version: 9 }]),
    deliveredChange: jest.fn((conversationId: string, messageId: number) => ({ ctes: 'delivered', parameters: [conversationId, messageId] })),
    insertConversation: jest.fn(async () => second),
    messageChange: jest.fn((written: NewMessage) => ({ ctes: 'message', parameters: [written] })),
    firstMessageChange: jest.fn((opened: { id: string }, content: string) => ({ ctes: 'first message', parameters: [opened, content] })),
    setFinderEmail: jest.fn(async () => true),
    deleteByItem: jest.fn(async () => [first.id, second.id]),
    forgetFinder: jest.fn(async () => true),
    nextThreadVersion: jest.fn(async () => 9),
    latestMessageId: jest.fn(async () => 5),
    countUnread: jest.fn(async () => 2),
  };
  const itemOwners = { findByCode: jest.fn(async () => owner) };
  // The message's row, as the statement the change is part of would return it (message 7 in the change's conversation);
  // a first message's statement finds the item itself, and writes nothing without one.
  const recordFromRow = jest.fn(async (_: Transaction | undefined, change: { ctes: string }, _subject: string, data: { conversationId: string; author: 'finder' | 'owner' }) => {
    if (change.ctes === 'first message') return owner ? { row: { ...message(7, 'finder', data.conversationId), owner_user_id: owner.ownerUserId }, event: {} } : null;
    return { row: message(7, data.author, data.conversationId), event: {} };
  });
  const outbox = { record: jest.fn(), recordFromRow };
  const replyAddresses = { mintForFinder: jest.fn(async () => 'abcdefghijklmnopqrstuvwxyz') };
  const idempotencyKeys = { run: jest.fn((_: unknown, work: (m: Transaction) => Promise<unknown>) => work(manager)) };
  const service = new ConversationsService(
    repository as unknown as ConversationsRepository,
    itemOwners as unknown as ItemOwnersRepository,
    outbox as unknown as OutboxWriter,
    idempotencyKeys as unknown as IdempotencyKeys,
    new ErasedConversations(repository as unknown as ConversationsRepository, outbox as unknown as OutboxWriter),
    replyAddresses as unknown as ReplyAddressesRepository,
    new NewMessages(repository as unknown as ConversationsRepository, outbox as unknown as OutboxWriter),
  );
  return { service, repository, outbox, idempotencyKeys, replyAddresses, itemOwners };
}

const post = (overrides: Partial<Parameters<ConversationsService['postMessage']>[0]> = {}) => ({ code: CODE, content: 'Found your keys', viewerUserId: null, ...overrides });

describe('ConversationsService', () => {
  it('opens a conversation for a finder without a token, answers its token, and records the message’s event', async () => {
    const { service, repository, outbox, itemOwners } = setUp();
    const answer = await service.postMessage(post());
    expect(answer.finder_token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const [[opened, content]] = repository.firstMessageChange.mock.calls;
    expect(opened).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), itemCode: CODE, finderTokenHash: hashFinderToken(answer.finder_token as string), finderLanguage: 'en' });
    expect(content).toBe('Found your keys');
    expect(answer.message).toMatchObject({ id: 7, author: 'finder', conversation_id: opened.id, is_read: false });
    // No key: the statement runs on its own and finds the item itself (nothing is read before it), the message's id
    // as the event's messageId and version, the item's owner from the same row.
    expect(outbox.recordFromRow).toHaveBeenCalledWith(
      undefined,
      { ctes: 'first message', parameters: [opened, content] },
      'messaging.message.created.v1',
      { itemCode: CODE, conversationId: opened.id, author: 'finder' },
      CODE,
      { version: 'id', data: { messageId: 'id', ownerUserId: 'owner_user_id' } },
    );
    expect(itemOwners.findByCode).not.toHaveBeenCalled();
    expect(repository.transaction).not.toHaveBeenCalled();
  });

  it('opens a conversation for a signed-in finder who is not of the item, once the item says so', async () => {
    const { service, repository, outbox, itemOwners } = setUp();
    const answer = await service.postMessage(post({ viewerUserId: STRANGER }));
    expect(itemOwners.findByCode).toHaveBeenCalledWith(CODE);
    expect(answer).toEqual({ message: expect.objectContaining({ author: 'finder' }), finder_token: expect.any(String) });
    expect(repository.firstMessageChange).toHaveBeenCalledTimes(1);
    expect(outbox.recordFromRow).toHaveBeenCalledWith(undefined, expect.anything(), 'messaging.message.created.v1', expect.anything(), CODE, { version: 'id', data: { messageId: 'id', ownerUserId: 'owner_user_id' } });
  });

  it('writes nothing for a first message to a code that is no tag’s, and asks nothing for one that cannot be', async () => {
    const { service, outbox } = setUp({ owner: null });
    await expect(service.postMessage(post())).rejects.toMatchObject({ body: { status: 404, response_code: 'ITEM_NOT_FOUND' } });
    expect(outbox.recordFromRow).toHaveBeenCalledTimes(1);
    await expect(service.postMessage(post({ code: 'not-a-code' }))).rejects.toMatchObject({ body: { status: 404, response_code: 'ITEM_NOT_FOUND' } });
    expect(outbox.recordFromRow).toHaveBeenCalledTimes(1);
  });

  it('writes a finder with a token into their own conversation, with no new token', async () => {
    const { service, repository, outbox } = setUp({ byToken: first });
    const answer = await service.postMessage(post({ finderToken: TOKEN }));
    expect(repository.findByFinderToken).toHaveBeenCalledWith(CODE, hashFinderToken(TOKEN));
    expect(repository.firstMessageChange).not.toHaveBeenCalled();
    expect(repository.messageChange).toHaveBeenCalledWith({ conversationId: first.id, author: 'finder', content: 'Found your keys' });
    expect(outbox.recordFromRow).toHaveBeenCalledWith(undefined, expect.anything(), 'messaging.message.created.v1', expect.objectContaining({ conversationId: first.id }), CODE, { version: 'id', data: { messageId: 'id' } });
    expect(answer).toEqual({ message: expect.objectContaining({ conversation_id: first.id }) });
  });

  it('refuses a message its conversation no longer takes, by what became of it', async () => {
    const { service, outbox } = setUp({ byToken: first, byId: { ...first, closed_at: new Date() } });
    outbox.recordFromRow.mockResolvedValueOnce(null as never);
    await expect(service.postMessage(post({ finderToken: TOKEN }))).rejects.toMatchObject({ body: { status: 409, response_code: 'CONVERSATION_CLOSED' } });
  });

  it('refuses the owner’s first message, and answers the latest finder once there is one', async () => {
    const lonely = setUp();
    await expect(lonely.service.postMessage(post({ viewerUserId: OWNER }))).rejects.toMatchObject({ body: { status: 403, response_code: 'CANNOT_FIND_YOUR_OWN_ITEM' } });
    expect(lonely.outbox.recordFromRow).not.toHaveBeenCalled();
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

  it('tells the owner whether the finder they reply to left an address: the named conversation’s, else the latest’s', async () => {
    const known = { ...second, finder_email: 'finder@example.test' };
    const { service, repository } = setUp({ latest: known });
    repository.findInItem.mockImplementation(async (_code: string, id: string) => (id === first.id ? first : id === known.id ? known : null));
    expect(await service.finderDetails(CODE, OWNER)).toEqual({ finder_known: true });
    expect(await service.finderDetails(CODE, OWNER, first.id)).toEqual({ finder_known: false });
    expect(await service.finderDetails(CODE, OWNER, known.id)).toEqual({ finder_known: true });
    expect(repository.findInItem).toHaveBeenCalledWith(CODE, first.id);
    await expect(service.finderDetails(CODE, OWNER, '33333333-3333-4333-8333-333333333333')).rejects.toMatchObject({ body: { status: 404, response_code: 'NOT_FOUND' } });
    await expect(service.finderDetails(CODE, STRANGER, first.id)).rejects.toMatchObject({ body: { status: 404, response_code: 'ITEM_NOT_FOUND' } });
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
    expect(owner.repository.markFinderMessagesRead).toHaveBeenCalledWith(manager, CODE, 5);
    expect(owner.outbox.record).toHaveBeenCalledWith(manager, 'messaging.messages.receipts.v1', { itemCode: CODE, conversationId: first.id, messageIds: [3] }, { aggregateId: CODE, version: 8 });
  });

  it('marks the owner’s replies read when their finder opens the conversation, with a receipts event', async () => {
    const finder = setUp({ byToken: first, messages: [message(3, 'finder'), message(4, 'owner')] });
    const thread = await finder.service.listMessages({ code: CODE, viewerUserId: null, finderToken: TOKEN });
    expect(thread.map((m) => [m.id, m.read_at])).toEqual([
      [3, null],
      [4, null],
    ]);
    expect(finder.repository.markRepliesRead).toHaveBeenCalledWith(manager, first.id, 4);
    expect(finder.outbox.record).toHaveBeenCalledWith(manager, 'messaging.messages.receipts.v1', { itemCode: CODE, conversationId: first.id, messageIds: [4] }, { aggregateId: CODE, version: 9 });

    const nothingToMark = setUp({ byToken: first, messages: [message(4, 'owner', first.id, new Date())] });
    await nothingToMark.service.listMessages({ code: CODE, viewerUserId: null, finderToken: TOKEN });
    expect(nothingToMark.repository.markRepliesRead).not.toHaveBeenCalled();
  });

  it('records a delivery and its receipts event in one statement, the stamped messages and version from its row', async () => {
    const { service, repository, outbox } = setUp();
    await service.messageDelivered({ itemCode: CODE, conversationId: first.id, messageId: 3 });
    expect(repository.deliveredChange).toHaveBeenCalledWith(first.id, 3);
    expect(outbox.recordFromRow).toHaveBeenCalledWith(
      undefined,
      { ctes: 'delivered', parameters: [first.id, 3] },
      'messaging.messages.receipts.v1',
      { itemCode: CODE, conversationId: first.id },
      CODE,
      { version: 'version', data: { messageIds: 'ids' } },
    );
  });

  it('shows receipts and a version that rises with them', () => {
    const read = new Date('2026-01-05T00:00:00Z');
    expect(toMessage({ ...message(4, 'owner', first.id, read), receipt_version: 12 })).toMatchObject({ is_read: true, read_at: read.toISOString(), delivered_at: null, version: 12 });
    expect(toMessage(message(4, 'finder'))).toMatchObject({ is_read: false, read_at: null, version: 4 });
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

  it('clears an item’s conversations and records it, and which conversations went, with versions after every message so far', async () => {
    const { service, repository, outbox } = setUp();
    await service.reset(CODE, OWNER);
    expect(repository.deleteByItem).toHaveBeenCalledWith(manager, CODE, undefined);
    expect(outbox.record).toHaveBeenCalledWith(manager, 'messaging.conversations.erased.v1', { itemCode: CODE, conversationIds: [first.id, second.id] }, { aggregateId: CODE, version: 9 });
    expect(outbox.record).toHaveBeenCalledWith(manager, 'messaging.conversation.cleared.v1', { itemCode: CODE, ownerUserId: OWNER }, { aggregateId: CODE, version: 9 });
  });

  it('keys a retried first message by the item, since the finder has no token yet, and writes it in the key’s transaction', async () => {
    const { service, idempotencyKeys, outbox } = setUp();
    await service.postMessage(post({ idempotencyKey: 'k1' }));
    expect(idempotencyKeys.run).toHaveBeenCalledWith(expect.objectContaining({ caller: `item:${CODE}`, key: 'k1' }), expect.any(Function));
    expect(outbox.recordFromRow).toHaveBeenCalledWith(manager, expect.anything(), 'messaging.message.created.v1', expect.anything(), CODE, { version: 'id', data: { messageId: 'id', ownerUserId: 'owner_user_id' } });
  });
});

describe('a co-owner', () => {
  it('reads every conversation as the owner does, marking finders’ messages read, and replies as the owner', async () => {
    const { service, repository } = setUp({ conversations: [first, second], messages: [message(1, 'finder'), message(2, 'finder', second.id)], latest: second });
    const messages = await service.listMessages({ code: CODE, viewerUserId: CO_OWNER });
    expect(messages.map((shown) => shown.finder)).toEqual(['Finder 1', 'Finder 2']);
    expect(repository.markFinderMessagesRead).toHaveBeenCalledWith(manager, CODE, 2);
    const reply = await service.postMessage(post({ viewerUserId: CO_OWNER }));
    expect(reply.message).toMatchObject({ author: 'owner', conversation_id: second.id });
    await expect(service.threadAccess({ code: CODE, viewerUserId: CO_OWNER })).resolves.toMatchObject({ conversationId: null });
    await expect(service.unreadCount(CODE, CO_OWNER)).resolves.toBe(2);
  });

  it('cannot find the item they share, nor clear its conversations: only the owner resets', async () => {
    const { service, repository, outbox } = setUp();
    await expect(service.setFinder({ code: CODE, email: 'me@example.test', viewerUserId: CO_OWNER })).rejects.toMatchObject({ body: { status: 403, response_code: 'CANNOT_FIND_YOUR_OWN_ITEM' } });
    await expect(service.reset(CODE, CO_OWNER)).rejects.toMatchObject({ body: { status: 403, response_code: 'FORBIDDEN' } });
    expect(repository.deleteByItem).not.toHaveBeenCalled();
    expect(outbox.record).not.toHaveBeenCalled();
  });

  it('is a stranger once removed: refused the thread, and the item is missing to owner-only calls', async () => {
    const { service } = setUp({ owner: { ...item, coOwnerUserIds: [] }, conversations: [first] });
    await expect(service.listMessages({ code: CODE, viewerUserId: CO_OWNER })).rejects.toMatchObject({ body: { status: 403, response_code: 'FORBIDDEN' } });
    await expect(service.finderDetails(CODE, CO_OWNER)).rejects.toMatchObject({ body: { status: 404, response_code: 'ITEM_NOT_FOUND' } });
    await expect(service.reset(CODE, CO_OWNER)).rejects.toMatchObject({ body: { status: 404, response_code: 'ITEM_NOT_FOUND' } });
  });
});

describe('a finder who forgets themselves', () => {
  it('erases their conversation in one transaction and records ids only, with a version after every message so far', async () => {
    const { service, repository, outbox } = setUp({ byToken: first });
    await service.forgetFinder({ code: CODE, viewerUserId: null, finderToken: TOKEN });
    expect(repository.findByFinderToken).toHaveBeenCalledWith(CODE, hashFinderToken(TOKEN));
    expect(repository.forgetFinder).toHaveBeenCalledWith(manager, first.id);
    expect(outbox.record).toHaveBeenCalledWith(manager, 'messaging.finder.left.v1', { itemCode: CODE, conversationId: first.id, ownerUserId: OWNER }, { aggregateId: CODE, version: 9 });
  });

  it('refuses anyone but that finder, and a second call, as reading does', async () => {
    for (const request of [
      { code: CODE, viewerUserId: null },
      { code: CODE, viewerUserId: OWNER, finderToken: TOKEN },
      { code: CODE, viewerUserId: STRANGER, finderToken: TOKEN },
    ]) {
      const { service, repository, outbox } = setUp({ byToken: request.viewerUserId === OWNER ? first : null });
      await expect(service.forgetFinder(request)).rejects.toMatchObject({ body: { status: 403, response_code: 'FORBIDDEN' } });
      expect(repository.forgetFinder).not.toHaveBeenCalled();
      expect(outbox.record).not.toHaveBeenCalled();
    }
    const raced = setUp({ byToken: first });
    raced.repository.forgetFinder.mockResolvedValueOnce(false);
    await expect(raced.service.forgetFinder({ code: CODE, viewerUserId: null, finderToken: TOKEN })).rejects.toMatchObject({ body: { status: 403 } });
    expect(raced.outbox.record).not.toHaveBeenCalled();
  });

  it('tells the owner the finder left, and refuses replies to them', async () => {
    const left = conversation(first.id, '2026-01-02T00:00:00Z', { finder_left_at: new Date('2026-01-05T00:00:00Z'), last_message_at: new Date('2026-01-04T00:00:00Z') });
    const { service, repository, outbox } = setUp({ latest: left });
    repository.findInItem.mockResolvedValue(left);
    expect(await service.finderDetails(CODE, OWNER)).toEqual({ finder_known: false, finder_left: true });
    expect(await service.finderDetails(CODE, OWNER, left.id)).toEqual({ finder_known: false, finder_left: true });
    await expect(service.postMessage(post({ viewerUserId: OWNER }))).rejects.toMatchObject({ body: { status: 409, response_code: 'FINDER_LEFT' } });
    await expect(service.postMessage(post({ viewerUserId: OWNER, conversationId: left.id }))).rejects.toMatchObject({ body: { status: 409, response_code: 'FINDER_LEFT' } });
    expect(outbox.record).not.toHaveBeenCalled();
  });
});

describe('a finder’s language', () => {
  it('keeps the language a finder first writes in, and a later one they name', async () => {
    const opening = setUp();
    await opening.service.postMessage(post({ language: 'es' }));
    expect(opening.repository.firstMessageChange).toHaveBeenCalledWith(expect.objectContaining({ finderLanguage: 'es' }), 'Found your keys');
    await opening.service.setFinder({ code: CODE, email: 'finder@example.test', viewerUserId: null, language: 'nl' });
    expect(opening.repository.insertConversation).toHaveBeenLastCalledWith(manager, expect.objectContaining({ finderLanguage: 'nl', finderEmail: 'finder@example.test' }));

    const later = setUp({ byToken: first });
    await later.service.postMessage(post({ finderToken: TOKEN, language: 'nl' }));
    expect(later.repository.setFinderLanguage).toHaveBeenCalledWith(first.id, 'nl');
    await later.service.postMessage(post({ finderToken: TOKEN }));
    await later.service.postMessage(post({ finderToken: TOKEN, language: 'en' }));
    expect(later.repository.setFinderLanguage).toHaveBeenCalledTimes(1);
  });

  it('never takes the owner’s language for the finder’s', async () => {
    const { service, repository } = setUp({ latest: first, byToken: first });
    await service.postMessage(post({ viewerUserId: OWNER, finderToken: TOKEN, language: 'es' }));
    expect(repository.setFinderLanguage).not.toHaveBeenCalled();
  });

  it('answers notifications the finder’s address and language, and a resume token only when asked and there is an address', async () => {
    const withAddress = { ...first, finder_email: 'finder@example.test', finder_language: 'es' as const };
    const { service, repository } = setUp({ byId: withAddress });
    await expect(service.finderContact(first.id)).resolves.toEqual({ email: 'finder@example.test', language: 'es' });
    expect(repository.insertToken).not.toHaveBeenCalled();
    const contact = await service.finderContact(first.id, { resumeLink: true });
    expect(contact.resumeToken).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(contact.replyToken).toBeUndefined();
    expect(repository.insertToken).toHaveBeenCalledWith(first.id, hashFinderToken(contact.resumeToken as string), 'resume');

    const silent = setUp({ byId: first });
    await expect(silent.service.finderContact(first.id, { resumeLink: true, replyAddress: true })).resolves.toEqual({ email: null, language: 'en' });
    expect(silent.repository.insertToken).not.toHaveBeenCalled();
    expect(silent.replyAddresses.mintForFinder).not.toHaveBeenCalled();
  });

  it('mints a reply address for the finder’s e-mail only when asked and there is an address', async () => {
    const withAddress = { ...first, finder_email: 'finder@example.test', finder_language: 'nl' as const };
    const { service, replyAddresses } = setUp({ byId: withAddress });
    await expect(service.finderContact(first.id, { replyAddress: true })).resolves.toEqual({
      email: 'finder@example.test',
      language: 'nl',
      replyToken: 'abcdefghijklmnopqrstuvwxyz',
    });
    expect(replyAddresses.mintForFinder).toHaveBeenCalledWith(first.id);
  });
});

describe('a resume link', () => {
  const now = new Date('2026-03-01T00:00:00Z');
  const active = { ...first, last_message_at: new Date(now.getTime() - RESUME_LINK_IDLE_MS + 60_000) };
  const idle = { ...first, last_message_at: new Date(now.getTime() - RESUME_LINK_IDLE_MS - 60_000) };

  it('works until its conversation has been idle for 30 days, counting from its start when it has no message', () => {
    expect(resumeLinkAlive(active, now)).toBe(true);
    expect(resumeLinkAlive(idle, now)).toBe(false);
    expect(resumeLinkAlive({ created_at: new Date(now.getTime() - 1000), last_message_at: null }, now)).toBe(true);
    expect(resumeLinkAlive({ created_at: new Date(now.getTime() - RESUME_LINK_IDLE_MS - 1000), last_message_at: null }, now)).toBe(false);
    // The latest message counts, not the start.
    expect(resumeLinkAlive({ created_at: new Date('2025-01-01T00:00:00Z'), last_message_at: new Date(now.getTime() - 1000) }, now)).toBe(true);
  });

  it('gives a new finder token of the same conversation for a live link, and keeps only its hash', async () => {
    const { service, repository } = setUp({ byResumeToken: active });
    const answer = await service.resumeFinder(CODE, TOKEN, 'nl', now);
    expect(repository.findByResumeToken).toHaveBeenCalledWith(CODE, hashFinderToken(TOKEN));
    expect(answer.finder_token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(answer.finder_token).not.toBe(TOKEN);
    expect(repository.insertToken).toHaveBeenCalledWith(first.id, hashFinderToken(answer.finder_token), 'finder');
    expect(repository.insertConversation).not.toHaveBeenCalled();
    // The browser that opened it names its language: the finder's e-mails follow it.
    expect(repository.setFinderLanguage).toHaveBeenCalledWith(first.id, 'nl');
  });

  it('refuses an unknown, malformed or expired link alike, giving nothing', async () => {
    for (const [options, token] of [
      [{ byResumeToken: null }, TOKEN],
      [{ byResumeToken: active }, 'not a token'],
      [{ byResumeToken: idle }, TOKEN],
    ] as const) {
      const { service, repository } = setUp(options);
      await expect(service.resumeFinder(CODE, token, undefined, now)).rejects.toMatchObject({ body: { status: 422, response_code: 'RESUME_LINK_EXPIRED' } });
      expect(repository.insertToken).not.toHaveBeenCalled();
    }
  });

  it('records a request for a link only when a conversation of the item has that address, with ids alone', async () => {
    const known = setUp({ byEmail: first });
    await known.service.requestResumeLink(CODE, 'Finder@Example.test');
    expect(known.repository.findLatestByFinderEmail).toHaveBeenCalledWith(CODE, 'Finder@Example.test');
    expect(known.outbox.record).toHaveBeenCalledWith(manager, 'messaging.resume-link.requested.v1', { itemCode: CODE, conversationId: first.id }, { aggregateId: first.id, version: 9 });

    const unknown = setUp();
    await expect(unknown.service.requestResumeLink(CODE, 'nobody@example.test')).resolves.toBeUndefined();
    expect(unknown.outbox.record).not.toHaveBeenCalled();
  });
});

describe('a thread', () => {
  it('knows the owner by their account even with a finder token, and a finder only by a token of this item', () => {
    expect(threadCaller(item, OWNER, first)).toEqual({ role: 'owner' });
    expect(threadCaller(item, STRANGER, first)).toEqual({ role: 'finder', conversation: first });
    expect(threadCaller(item, STRANGER, null)).toEqual({ role: 'stranger' });
    expect(threadCaller(item, null, null)).toEqual({ role: 'stranger' });
  });

  it('knows a co-owner as an owner, even with a finder token, and no longer once they were removed', () => {
    expect(threadCaller(item, CO_OWNER, null)).toEqual({ role: 'owner' });
    expect(threadCaller(item, CO_OWNER, first)).toEqual({ role: 'owner' });
    const removed = { ...item, coOwnerUserIds: [] };
    expect(threadCaller(removed, CO_OWNER, null)).toEqual({ role: 'stranger' });
    expect(threadCaller(removed, CO_OWNER, first)).toEqual({ role: 'finder', conversation: first });
    expect(threadCaller(removed, OWNER, null)).toEqual({ role: 'owner' });
  });

  it('labels finders only when there is more than one', () => {
    expect(finderLabels([first]).size).toBe(0);
    expect(toMessage(message(1, 'finder'), finderLabels([first]))).not.toHaveProperty('finder');
    const labels = finderLabels([second, first]);
    expect([labels.get(first.id), labels.get(second.id)]).toEqual(['Finder 1', 'Finder 2']);
  });
});
