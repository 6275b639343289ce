import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { parseTagCode, ResponseCode, resumeTokenSchema, roundSharedLocation, type CreateMessageResponse, type FinderDetails, type FinderTokenResponse, type FoundItems, type Message, type MessageAuthor, type RpcRequest, type RpcResponse, type ThreadAccess, type ThreadMessage, type UserLanguage } from '@homing/contracts';
import { IdempotencyKeys, OutboxWriter, RpcError, type Transaction } from '@homing/platform';
import { ItemOwnersRepository, ownsItem, type ItemOwner } from '../item-owners/item-owners.repository';
import { ErasedConversations } from './erased-conversations';
import { ConversationsRepository, type ConversationRow, type ReceiptChange } from './conversations.repository';
import { CONVERSATION_CLOSED, messageRefused, NewMessages } from './new-messages';
import { hashFinderToken, newFinderToken, resumeLinkAlive } from './finder-tokens';
import { asReadBy, finderLabels, sharesContactDetails, threadCaller, toMessage, withOtherSide } from './thread';
import { ReplyAddressesRepository } from '../relay/reply-addresses.repository';

// A receipt's stamp: the messages it stamped, and the version it drew as its event's.
const RECEIPT_IN_EVENT = { version: 'version', data: { messageIds: 'ids' } } as const;
const ITEM_NOT_FOUND = () => RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
const OWN_ITEM = () => RpcError.forbidden(ResponseCode.CANNOT_FIND_YOUR_OWN_ITEM, 'You cannot find your own item.');
// Unknown, altered and expired links answer alike: a guesser learns nothing from which it was.
const RESUME_LINK_EXPIRED = () =>
  new RpcError({ status: 422, response_code: ResponseCode.RESUME_LINK_EXPIRED, message: 'This link to a conversation has expired. Ask for a new one with the address you wrote with.' });
const FORBIDDEN = () => RpcError.forbidden(ResponseCode.FORBIDDEN, 'Only the owner and the finder who wrote can read this conversation.');
const FINDER_LEFT = () => new RpcError({ status: 409, response_code: ResponseCode.FINDER_LEFT, message: 'The finder deleted this conversation: they cannot be answered any more.' });

@Injectable()
export class ConversationsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly itemOwners: ItemOwnersRepository,
    private readonly outbox: OutboxWriter,
    private readonly idempotencyKeys: IdempotencyKeys,
    private readonly erasedConversations: ErasedConversations,
    private readonly replyAddresses: ReplyAddressesRepository,
    private readonly newMessages: NewMessages,
  ) {}

  /**
   * A finder leaves an address to hear of replies. With the token of their conversation it changes the address;
   * without one (before the first message) it opens their conversation and answers its token.
   */
  async setFinder(request: RpcRequest<'messaging.rpc.set-finder'>): Promise<FinderTokenResponse> {
    const item = await this.activatedItem(request.code);
    if (ownsItem(item, request.viewerUserId)) throw OWN_ITEM();
    const existing = await this.finderConversation(item, request.finderToken);
    if (existing && request.finderToken) {
      // Not once they left meanwhile (their "forget me" racing this): the address would outlive it.
      if (!(await this.conversations.setFinderEmail(existing.id, request.email))) throw messageRefused(existing, 'finder');
      await this.keepLanguage(existing, request.language);
      return { finder_token: request.finderToken };
    }
    const token = newFinderToken();
    await this.conversations.transaction((manager) =>
      this.conversations.insertConversation(manager, {
        itemCode: item.itemCode,
        finderTokenHash: hashFinderToken(token),
        finderEmail: request.email,
        finderLanguage: request.language ?? 'en',
      }),
    );
    return { finder_token: token };
  }

  /**
   * A message about an item, and `messaging.message.created.v1` in the same statement. A finder with the token of
   * their conversation writes in it; a finder without one (or with one of a conversation that was reset) opens a
   * conversation and gets its token. The owner answers the latest finder, or the conversation they name, but
   * cannot write first. With an idempotency key, a retry gets the first answer.
   */
  async postMessage(request: RpcRequest<'messaging.rpc.post-message'>): Promise<CreateMessageResponse> {
    // An anonymous finder's first message (every finder's first, and each of B3's) needs nothing read before it: the
    // statement that writes it finds the item, one round trip in all.
    if (!request.viewerUserId && !request.finderToken) return this.postFirstMessage(request);
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    const author = caller.role === 'owner' ? 'owner' : 'finder';
    if (caller.role === 'finder') await this.keepLanguage(caller.conversation, request.language);
    // Keys are per caller; a finder without a token yet is known only by the item they write about.
    const keyCaller = request.viewerUserId ?? (caller.role === 'finder' ? `finder:${caller.conversation.id}` : `item:${item.itemCode}`);
    return this.postIdempotently(request, item.itemCode, keyCaller, author, async (transaction) => {
      // Where it goes is decided once the key is claimed: a retry of a message stored before its conversation closed,
      // or before its finder left, gets the first answer (the message is in), not the refusal a new message gets.
      const target = caller.role === 'owner' ? await this.ownerTarget(item, request.conversationId) : caller.role === 'finder' ? caller.conversation : null;
      if (!target) return this.openConversation(transaction, item.itemCode, request);
      if (target.closed_at) throw CONVERSATION_CLOSED();
      const change = this.conversations.messageChange({ conversationId: target.id, author, content: request.content });
      return { message: toMessage(await this.newMessages.record(transaction, change, item, target.id, author)) };
    });
  }

  /** A message from a finder with no token and no account: the first of a conversation it opens. */
  private async postFirstMessage(request: RpcRequest<'messaging.rpc.post-message'>): Promise<CreateMessageResponse> {
    const itemCode = parseTagCode(request.code);
    if (!itemCode) throw ITEM_NOT_FOUND();
    return this.postIdempotently(request, itemCode, `item:${itemCode}`, 'finder', (transaction) => this.openConversation(transaction, itemCode, request));
  }

  /**
   * A finder's first message, the conversation it opens and its event in one statement, which finds the item too
   * (ITEM_NOT_FOUND when there is none: nothing written); answers the conversation's new finder token with it.
   */
  private async openConversation(transaction: Transaction | undefined, itemCode: string, request: RpcRequest<'messaging.rpc.post-message'>): Promise<CreateMessageResponse> {
    const finderToken = newFinderToken();
    const conversationId = randomUUID();
    const opened = { id: conversationId, itemCode, finderTokenHash: hashFinderToken(finderToken), finderLanguage: request.language ?? 'en' };
    const posted = await this.newMessages.recordFirst(transaction, this.conversations.firstMessageChange(opened, request.content), itemCode, conversationId);
    if (!posted) throw ITEM_NOT_FOUND();
    return { message: toMessage(posted), finder_token: finderToken };
  }

  /**
   * `post` in the idempotency key's transaction, so a retry gets the first answer; without a key on its own, its one
   * statement atomic as it is.
   */
  private postIdempotently(
    request: RpcRequest<'messaging.rpc.post-message'>,
    itemCode: string,
    caller: string,
    author: MessageAuthor,
    post: (transaction: Transaction | undefined) => Promise<CreateMessageResponse>,
  ): Promise<CreateMessageResponse> {
    if (!request.idempotencyKey) return post(undefined);
    const idempotent = {
      operation: 'messaging.post-message',
      caller,
      key: request.idempotencyKey,
      request: { code: itemCode, content: request.content, conversationId: request.conversationId ?? null, author },
    };
    return this.idempotencyKeys.run(idempotent, post);
  }

  /**
   * A place the finder shares, as an entry of their conversation (empty content), with `messaging.message.created.v1`
   * so the owner hears of it as of a message. Only the finder of the conversation, by their token; rounded here
   * whatever the caller did.
   */
  async shareLocation(request: RpcRequest<'messaging.rpc.share-location'>): Promise<{ message: Message }> {
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    if (caller.role !== 'finder') throw new RpcError({ status: 403, response_code: ResponseCode.FORBIDDEN, message: 'Only the finder of a conversation shares a place, with their finder token.' });
    if (caller.conversation.closed_at) throw CONVERSATION_CLOSED();
    const change = this.conversations.messageChange({ conversationId: caller.conversation.id, author: 'finder', content: '', location: roundSharedLocation(request.location) });
    return { message: toMessage(await this.newMessages.record(undefined, change, item, caller.conversation.id, 'finder')) };
  }

  /**
   * The owner gets every conversation's messages, each finder labelled when there are several, and the finders'
   * messages are then marked read; a finder gets their own conversation; anyone else is refused.
   */
  async listMessages(request: RpcRequest<'messaging.rpc.list-messages'>): Promise<Message[]> {
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    const after = request.after ?? 0;
    if (caller.role === 'finder') {
      const rows = await this.conversations.findMessages([caller.conversation.id], after);
      // The finder opened their conversation: the owner's replies in it are read (answered as before this read).
      if (rows.some((row) => row.author === 'owner' && row.read_at === null)) {
        const conversationId = caller.conversation.id;
        const upTo = Number(rows[rows.length - 1].id);
        await this.recordReceipts(item.itemCode, (transaction) => this.conversations.markRepliesRead(transaction, conversationId, upTo));
      }
      const shared = sharesContactDetails(caller.conversation);
      return rows.map((row) => asReadBy(toMessage(row), 'finder', shared));
    }
    if (caller.role === 'stranger') throw FORBIDDEN();
    const conversations = await this.conversations.findByItem(item.itemCode);
    const rows = await this.conversations.findMessages(
      conversations.map((conversation) => conversation.id),
      after,
    );
    // Answered as they were before this read, so the page can tell the owner which are new.
    const labels = finderLabels(conversations);
    const shared = new Set(conversations.filter(sharesContactDetails).map((conversation) => conversation.id));
    const messages = rows.map((row) => asReadBy(toMessage(row, labels), 'owner', shared.has(row.conversation_id)));
    if (rows.some((row) => row.author === 'finder' && row.read_at === null)) {
      const upTo = Number(rows[rows.length - 1].id);
      await this.recordReceipts(item.itemCode, (transaction) => this.conversations.markFinderMessagesRead(transaction, item.itemCode, upTo));
    }
    return messages;
  }

  /**
   * Who the caller is to the item's thread, for the gateway to authorise a message stream or an empty poll once:
   * the owner or a finder, and the item's newest message (where a stream starts). Anyone else is refused, as by `listMessages`.
   */
  async threadAccess(request: RpcRequest<'messaging.rpc.thread-access'>): Promise<ThreadAccess> {
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    if (caller.role === 'stranger') throw FORBIDDEN();
    const conversationId = caller.role === 'finder' ? caller.conversation.id : null;
    return { itemCode: item.itemCode, conversationId, latestMessageId: await this.conversations.latestMessageId(item.itemCode) };
  }

  /**
   * Every message of the item after `after`, labelled as the owner sees them, marking nothing read: what the
   * gateway fans out to the streams it authorised, each seeing only what its caller may read.
   */
  async messagesAfter(code: string, after: number): Promise<ThreadMessage[]> {
    const item = await this.activatedItem(code);
    const conversations = await this.conversations.findByItem(item.itemCode);
    const rows = await this.conversations.findMessages(
      conversations.map((conversation) => conversation.id),
      after,
    );
    const labels = finderLabels(conversations);
    const shared = new Set(conversations.filter(sharesContactDetails).map((conversation) => conversation.id));
    return rows.map((row) => withOtherSide(toMessage(row, labels), shared.has(row.conversation_id)));
  }

  /**
   * Whether replies can reach a finder (they left an address): the named conversation's, else the latest finder's.
   * Never the address. A conversation about another item is as unknown as a missing one.
   */
  async finderDetails(code: string, ownerUserId: string, conversationId?: string): Promise<FinderDetails> {
    const item = await this.ownedItem(code, ownerUserId);
    if (conversationId) {
      const named = await this.conversations.findInItem(item.itemCode, conversationId);
      if (!named) throw RpcError.notFound(ResponseCode.NOT_FOUND, 'No such conversation about this item.');
      return finderDetailsOf(named);
    }
    return finderDetailsOf(await this.conversations.findLatest(item.itemCode, { withMessages: false }));
  }

  async unreadCount(code: string, ownerUserId: string): Promise<number> {
    const item = await this.ownedItem(code, ownerUserId);
    return this.conversations.countUnread(item.itemCode);
  }

  /** For each code as asked: whether a finder wrote about it. Codes that are not the caller's (as owner or co-owner) are simply false. */
  async foundItems(codes: string[], ownerUserId: string): Promise<FoundItems> {
    const parsed = new Map(codes.map((input) => [input, parseTagCode(input)]));
    const owned = await this.itemOwners.findCodesOwnedBy([...new Set([...parsed.values()].filter((code): code is string => code !== null))], ownerUserId);
    const found = await this.conversations.itemsWithFinderMessages([...owned]);
    return Object.fromEntries([...parsed].map(([input, code]) => [input, code !== null && found.has(code)]));
  }

  /** Deletes every conversation of the owner's item, so the next finder starts afresh. The owner's alone: not a co-owner's. */
  async reset(code: string, ownerUserId: string): Promise<void> {
    const item = await this.ownedItem(code, ownerUserId);
    if (item.ownerUserId !== ownerUserId) throw RpcError.forbidden(ResponseCode.FORBIDDEN, 'Only the item’s owner can delete its conversations.');
    await this.conversations.transaction(async (manager) => {
      await this.erasedConversations.eraseOfItem(manager, item.itemCode);
      const version = await this.conversations.nextThreadVersion(manager);
      await this.outbox.record(manager, 'messaging.conversation.cleared.v1', { itemCode: item.itemCode, ownerUserId }, { aggregateId: item.itemCode, version });
    });
  }

  /**
   * A finder forgets themselves (GDPR erasure by the data subject): in one transaction their messages, address,
   * language and every token of the conversation go, a `finder_left_at` marker stays for the owner's thread, and
   * `messaging.finder.left.v1` (ids only) tells notifications and the gateway. Only the conversation's finder may; a
   * token already forgotten is no token (403, as for reading).
   */
  async forgetFinder(request: RpcRequest<'messaging.rpc.forget-finder'>): Promise<void> {
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    if (caller.role !== 'finder') throw FORBIDDEN();
    const conversationId = caller.conversation.id;
    await this.conversations.transaction(async (manager) => {
      // A concurrent call forgot it first: that one answered and published.
      if (!(await this.conversations.forgetFinder(manager, conversationId))) throw FORBIDDEN();
      const version = await this.conversations.nextThreadVersion(manager);
      await this.outbox.record(
        manager,
        'messaging.finder.left.v1',
        { itemCode: item.itemCode, conversationId, ownerUserId: item.ownerUserId },
        { aggregateId: item.itemCode, version },
      );
    });
  }

  /**
   * Notifications told the other side of a message (`notifications.message.delivered.v1`): it (and every earlier one of its author in the conversation) is
   * stamped delivered with its receipts event in one statement. An event that comes again, or late, finds nothing left
   * to stamp and records nothing: the stamp is its own idempotency.
   */
  async messageDelivered(data: { itemCode: string; conversationId: string; messageId: number }): Promise<void> {
    await this.outbox.recordFromRow(
      undefined,
      this.conversations.deliveredChange(data.conversationId, data.messageId),
      'messaging.messages.receipts.v1',
      { itemCode: data.itemCode, conversationId: data.conversationId },
      data.itemCode,
      RECEIPT_IN_EVENT,
    );
  }

  /**
   * The newest finder's message from `messageId` on that the owner has not read: an e-mail is still worth sending. With
   * `replyAddressFor` and such a message, the mail's reply token too (none is minted for a mail that is not sent).
   */
  async unreadSince(request: RpcRequest<'messaging.rpc.unread-since'>): Promise<RpcResponse<'messaging.rpc.unread-since'>> {
    if (!request.replyAddressFor) return { latestUnreadMessageId: await this.conversations.latestUnreadFinderMessage(request.conversationId, request.messageId) };
    const { latestUnreadMessageId, replyToken } = await this.replyAddresses.latestUnreadWithOwnerAddress(request.conversationId, request.replyAddressFor, request.messageId);
    return latestUnreadMessageId === null ? { latestUnreadMessageId } : { latestUnreadMessageId, replyToken };
  }

  // Receipts and their `messaging.messages.receipts.v1` events commit together.
  private async recordReceipts(itemCode: string, stamp: (transaction: Transaction) => Promise<ReceiptChange[]>): Promise<void> {
    await this.conversations.transaction(async (transaction) => this.publishReceipts(transaction, itemCode, await stamp(transaction)));
  }

  private async publishReceipts(transaction: Transaction, itemCode: string, changes: ReceiptChange[]): Promise<void> {
    for (const change of changes) {
      await this.outbox.record(
        transaction,
        'messaging.messages.receipts.v1',
        { itemCode, conversationId: change.conversationId, messageIds: change.messageIds },
        { aggregateId: itemCode, version: change.version },
      );
    }
  }

  /**
   * The address a finder left and their language, for notifications to relay a reply; null when they left none or
   * the conversation is gone. With an address, `resumeLink` mints a new resume token for the e-mail's link and
   * `replyAddress` a reply token for its `Reply-To` (the relay's `c-{token}@…`): random, only their hashes kept,
   * minted as the e-mail is made so they never travel in an event or a job.
   */
  async finderContact(
    conversationId: string,
    options: { resumeLink?: boolean; replyAddress?: boolean } = {},
  ): Promise<{ email: string | null; language: UserLanguage; resumeToken?: string; replyToken?: string }> {
    const conversation = await this.conversations.findById(conversationId);
    if (!conversation?.finder_email) return { email: null, language: conversation?.finder_language ?? 'en' };
    const contact = { email: conversation.finder_email, language: conversation.finder_language };
    let resumeToken: string | undefined;
    if (options.resumeLink) {
      const minted = newFinderToken();
      // None for a finder who left meanwhile (their address is gone with them: the mail finds nobody to go to).
      if (await this.conversations.insertToken(conversation.id, hashFinderToken(minted), 'resume')) resumeToken = minted;
    }
    const replyToken = options.replyAddress ? await this.replyAddresses.mintForFinder(conversation.id) : undefined;
    return { ...contact, ...(resumeToken ? { resumeToken } : {}), ...(replyToken ? { replyToken } : {}) };
  }

  /**
   * A resume link opened in any browser: a new finder token of the same conversation for that browser (the
   * browsers that had one keep theirs). Unknown, altered and expired links, and links of a conversation that was
   * reset, are all 422 RESUME_LINK_EXPIRED.
   */
  async resumeFinder(code: string, token: string, language?: UserLanguage, now = new Date()): Promise<FinderTokenResponse> {
    const item = await this.activatedItem(code);
    if (!resumeTokenSchema.safeParse(token).success) throw RESUME_LINK_EXPIRED();
    const conversation = await this.conversations.findByResumeToken(item.itemCode, hashFinderToken(token));
    if (!conversation || !resumeLinkAlive(conversation, now)) throw RESUME_LINK_EXPIRED();
    const finderToken = newFinderToken();
    // The finder left while the link was opened: the link went with the conversation.
    if (!(await this.conversations.insertToken(conversation.id, hashFinderToken(finderToken), 'finder'))) throw RESUME_LINK_EXPIRED();
    await this.keepLanguage(conversation, language);
    return { finder_token: finderToken };
  }

  /**
   * A finder asks for a link to their conversation: if the item's conversation with a message has that address,
   * `messaging.resume-link.requested.v1` (ids only) asks notifications to e-mail them one. Nothing tells the caller
   * whether it had.
   */
  async requestResumeLink(code: string, email: string): Promise<void> {
    const item = await this.activatedItem(code);
    const conversation = await this.conversations.findLatestByFinderEmail(item.itemCode, email);
    if (!conversation) return;
    await this.conversations.transaction(async (manager) => {
      const version = await this.conversations.nextThreadVersion(manager);
      await this.outbox.record(
        manager,
        'messaging.resume-link.requested.v1',
        { itemCode: item.itemCode, conversationId: conversation.id },
        { aggregateId: conversation.id, version },
      );
    });
  }

  // A finder's later calls that name a language keep it: their browser may have changed since they first wrote.
  private async keepLanguage(conversation: ConversationRow, language: UserLanguage | undefined): Promise<void> {
    if (language && language !== conversation.finder_language) await this.conversations.setFinderLanguage(conversation.id, language);
  }

  // Unknown, malformed and not yet activated codes: messaging knows only activated items (item_owners).
  private async activatedItem(input: string): Promise<ItemOwner> {
    const code = parseTagCode(input);
    const item = code ? await this.itemOwners.findByCode(code) : null;
    if (!item) throw ITEM_NOT_FOUND();
    return item;
  }

  // Another person's item is the same 404 as a missing one: no probing whose it is. Co-owners own it here too.
  private async ownedItem(input: string, ownerUserId: string): Promise<ItemOwner> {
    const item = await this.activatedItem(input);
    if (!ownsItem(item, ownerUserId)) throw ITEM_NOT_FOUND();
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
      if (named.finder_left_at) throw FINDER_LEFT();
      return named;
    }
    const latest = await this.conversations.findLatest(item.itemCode, { withMessages: true });
    if (!latest) throw OWN_ITEM();
    // Finders still there come first: this one left and nobody else is there to answer.
    if (latest.finder_left_at) throw FINDER_LEFT();
    return latest;
  }
}

// `finder_left` only when true, so answers about finders still there read as before.
function finderDetailsOf(conversation: ConversationRow | null): FinderDetails {
  if (conversation?.finder_left_at) return { finder_known: false, finder_left: true };
  return { finder_known: conversation?.finder_email != null };
}
