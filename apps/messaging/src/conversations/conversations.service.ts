import { Injectable } from '@nestjs/common';
import { parseTagCode, ResponseCode, type CreateMessageResponse, type FinderDetails, type FinderTokenResponse, type FoundItems, type Message, type RpcRequest, type ThreadAccess } from '@homing/contracts';
import { IdempotencyKeys, OutboxWriter, RpcError } from '@homing/platform';
import { ItemOwnersRepository, type ItemOwner } from '../item-owners/item-owners.repository';
import { ConversationsRepository, type ConversationRow } from './conversations.repository';
import { hashFinderToken, newFinderToken } from './finder-tokens';
import { finderLabels, threadCaller, toMessage } from './thread';

const ITEM_NOT_FOUND = () => RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
const OWN_ITEM = () => RpcError.forbidden(ResponseCode.CANNOT_FIND_YOUR_OWN_ITEM, 'You cannot find your own item.');
const FORBIDDEN = () => RpcError.forbidden(ResponseCode.FORBIDDEN, 'Only the owner and the finder who wrote can read this conversation.');

@Injectable()
export class ConversationsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly itemOwners: ItemOwnersRepository,
    private readonly outbox: OutboxWriter,
    private readonly idempotencyKeys: IdempotencyKeys,
  ) {}

  /**
   * A finder leaves an address to hear of replies. With the token of their conversation it changes the address;
   * without one (before the first message) it opens their conversation and answers its token.
   */
  async setFinder(request: RpcRequest<'messaging.rpc.set-finder'>): Promise<FinderTokenResponse> {
    const item = await this.activatedItem(request.code);
    if (request.viewerUserId === item.ownerUserId) throw OWN_ITEM();
    const existing = await this.finderConversation(item, request.finderToken);
    if (existing && request.finderToken) {
      await this.conversations.setFinderEmail(existing.id, request.email);
      return { finder_token: request.finderToken };
    }
    const token = newFinderToken();
    await this.conversations.transaction((manager) =>
      this.conversations.insertConversation(manager, { itemCode: item.itemCode, finderTokenHash: hashFinderToken(token), finderEmail: request.email }),
    );
    return { finder_token: token };
  }

  /**
   * A message about an item, and `messaging.message.created.v1` in the same transaction. A finder with the token of
   * their conversation writes in it; a finder without one (or with one of a conversation that was reset) opens a
   * conversation and gets its token. The owner answers the latest finder, or the conversation they name, but
   * cannot write first. With an idempotency key, a retry gets the first answer.
   */
  async postMessage(request: RpcRequest<'messaging.rpc.post-message'>): Promise<CreateMessageResponse> {
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item.ownerUserId, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    const target = caller.role === 'owner' ? await this.ownerTarget(item, request.conversationId) : caller.role === 'finder' ? caller.conversation : null;
    const author = caller.role === 'owner' ? 'owner' : 'finder';
    const idempotent = request.idempotencyKey
      ? {
          operation: 'messaging.post-message',
          // Keys are per caller; a finder without a token yet is known only by the item they write about.
          caller: request.viewerUserId ?? (caller.role === 'finder' ? `finder:${caller.conversation.id}` : `item:${item.itemCode}`),
          key: request.idempotencyKey,
          request: { code: item.itemCode, content: request.content, conversationId: request.conversationId ?? null, author },
        }
      : null;

    return this.idempotencyKeys.run(idempotent, async (manager) => {
      let finderToken: string | undefined;
      let conversation = target;
      if (!conversation) {
        finderToken = newFinderToken();
        conversation = await this.conversations.insertConversation(manager, { itemCode: item.itemCode, finderTokenHash: hashFinderToken(finderToken), finderEmail: null });
      }
      const row = await this.conversations.insertMessage(manager, { conversationId: conversation.id, author, content: request.content });
      await this.outbox.record(
        manager,
        'messaging.message.created.v1',
        { itemCode: item.itemCode, conversationId: conversation.id, messageId: Number(row.id), author, ownerUserId: item.ownerUserId },
        { aggregateId: item.itemCode, version: Number(row.id) },
      );
      return { message: toMessage(row), ...(finderToken ? { finder_token: finderToken } : {}) };
    });
  }

  /**
   * The owner gets every conversation's messages, each finder labelled when there are several, and the finders'
   * messages are then marked read; a finder gets their own conversation; anyone else is refused.
   */
  async listMessages(request: RpcRequest<'messaging.rpc.list-messages'>): Promise<Message[]> {
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item.ownerUserId, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    const after = request.after ?? 0;
    if (caller.role === 'finder') {
      return (await this.conversations.findMessages([caller.conversation.id], after)).map((row) => toMessage(row));
    }
    if (caller.role === 'stranger') throw FORBIDDEN();
    const conversations = await this.conversations.findByItem(item.itemCode);
    const rows = await this.conversations.findMessages(
      conversations.map((conversation) => conversation.id),
      after,
    );
    // Answered as they were before this read, so the page can tell the owner which are new.
    const labels = finderLabels(conversations);
    const messages = rows.map((row) => toMessage(row, labels));
    if (rows.some((row) => row.author === 'finder' && row.read_at === null)) {
      await this.conversations.markFinderMessagesRead(item.itemCode, Number(rows[rows.length - 1].id));
    }
    return messages;
  }

  /**
   * Who the caller is to the item's thread, for the gateway to authorise a message stream or an empty poll once:
   * the owner or a finder, and the item's newest message (where a stream starts). Anyone else is refused, as by `listMessages`.
   */
  async threadAccess(request: RpcRequest<'messaging.rpc.thread-access'>): Promise<ThreadAccess> {
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item.ownerUserId, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    if (caller.role === 'stranger') throw FORBIDDEN();
    const conversationId = caller.role === 'finder' ? caller.conversation.id : null;
    return { itemCode: item.itemCode, conversationId, latestMessageId: await this.conversations.latestMessageId(item.itemCode) };
  }

  /**
   * Every message of the item after `after`, labelled as the owner sees them, marking nothing read: what the
   * gateway fans out to the streams it authorised, each seeing only what its caller may read.
   */
  async messagesAfter(code: string, after: number): Promise<Message[]> {
    const item = await this.activatedItem(code);
    const conversations = await this.conversations.findByItem(item.itemCode);
    const rows = await this.conversations.findMessages(
      conversations.map((conversation) => conversation.id),
      after,
    );
    const labels = finderLabels(conversations);
    return rows.map((row) => toMessage(row, labels));
  }

  /** Whether replies can reach the latest finder (they left an address). Never the address. */
  async finderDetails(code: string, ownerUserId: string): Promise<FinderDetails> {
    const item = await this.ownedItem(code, ownerUserId);
    const latest = await this.conversations.findLatest(item.itemCode, { withMessages: false });
    return { finder_known: latest?.finder_email != null };
  }

  async unreadCount(code: string, ownerUserId: string): Promise<number> {
    const item = await this.ownedItem(code, ownerUserId);
    return this.conversations.countUnread(item.itemCode);
  }

  /** For each code as asked: whether a finder wrote about it. Codes that are not the caller's are simply false. */
  async foundItems(codes: string[], ownerUserId: string): Promise<FoundItems> {
    const parsed = new Map(codes.map((input) => [input, parseTagCode(input)]));
    const owned = await this.itemOwners.findCodesOwnedBy([...new Set([...parsed.values()].filter((code): code is string => code !== null))], ownerUserId);
    const found = await this.conversations.itemsWithFinderMessages([...owned]);
    return Object.fromEntries([...parsed].map(([input, code]) => [input, code !== null && found.has(code)]));
  }

  /** Deletes every conversation of the owner's item, so the next finder starts afresh. */
  async reset(code: string, ownerUserId: string): Promise<void> {
    const item = await this.ownedItem(code, ownerUserId);
    await this.conversations.transaction(async (manager) => {
      await this.conversations.deleteByItem(manager, item.itemCode);
      const version = await this.conversations.nextThreadVersion(manager);
      await this.outbox.record(manager, 'messaging.conversation.cleared.v1', { itemCode: item.itemCode, ownerUserId }, { aggregateId: item.itemCode, version });
    });
  }

  /** The address a finder left, for notifications to relay a reply; null when they left none or it is gone. */
  async finderContact(conversationId: string): Promise<{ email: string | null }> {
    const conversation = await this.conversations.findById(conversationId);
    return { email: conversation?.finder_email ?? null };
  }

  // Unknown, malformed and not yet activated codes: messaging knows only activated items (item_owners).
  private async activatedItem(input: string): Promise<ItemOwner> {
    const code = parseTagCode(input);
    const item = code ? await this.itemOwners.findByCode(code) : null;
    if (!item) throw ITEM_NOT_FOUND();
    return item;
  }

  // Another person's item is the same 404 as a missing one: no probing whose it is.
  private async ownedItem(input: string, ownerUserId: string): Promise<ItemOwner> {
    const item = await this.activatedItem(input);
    if (item.ownerUserId !== ownerUserId) throw ITEM_NOT_FOUND();
    return item;
  }

  private async finderConversation(item: ItemOwner, finderToken: string | undefined): Promise<ConversationRow | null> {
    return finderToken ? this.conversations.findByFinderToken(item.itemCode, hashFinderToken(finderToken)) : null;
  }

  // The owner answers the conversation they name, else the latest finder's; with none, they would be writing first.
  private async ownerTarget(item: ItemOwner, conversationId: string | undefined): Promise<ConversationRow> {
    if (conversationId) {
      const named = await this.conversations.findInItem(item.itemCode, conversationId);
      if (!named) throw RpcError.notFound(ResponseCode.NOT_FOUND, 'No such conversation about this item.');
      return named;
    }
    const latest = await this.conversations.findLatest(item.itemCode, { withMessages: true });
    if (!latest) throw OWN_ITEM();
    return latest;
  }
}
