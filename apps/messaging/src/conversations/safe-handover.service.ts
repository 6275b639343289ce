import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { HANDOVER_MAX_TRIES_PER_ITEM_PER_HOUR, HANDOVER_MAX_WRONG_PER_HOUR, parseTagCode, ResponseCode, type ConversationState, type HandoverCode, type RpcRequest } from '@homing/contracts';
import { OutboxWriter, RpcError } from '@homing/platform';
import { ItemOwnersRepository, ownsItem, type ItemOwner } from '../item-owners/item-owners.repository';
import { ConversationsRepository, type ConversationRow, type ReceiptChange } from './conversations.repository';
import { CONVERSATION_CLOSED } from './new-messages';
import { hashFinderToken } from './finder-tokens';
import { currentHandoverCode, isHandoverCode } from './handover-codes';
import { sharesContactDetails, threadCaller } from './thread';

const HOUR_MS = 60 * 60_000;

const ITEM_NOT_FOUND = () => RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
const NO_CONVERSATION = () => RpcError.notFound(ResponseCode.NOT_FOUND, 'No such conversation about this item.');
const FORBIDDEN = () => RpcError.forbidden(ResponseCode.FORBIDDEN, 'Only the owner and the finder who wrote can do this.');
const ALREADY_SHARED = () =>
  new RpcError({ status: 409, response_code: ResponseCode.CONTACT_ALREADY_SHARED, message: 'Both sides agreed to share contact details: it cannot be withdrawn any more.' });

/**
 * The moment of the hand-over, made safe: contact details stay masked until both sides agree to share them, and the
 * finder closes the case only with the code the owner's thread shows, which a stranger who read the tag cannot know.
 */
@Injectable()
export class SafeHandoverService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly itemOwners: ItemOwnersRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  async state(request: RpcRequest<'messaging.rpc.conversation-state'>): Promise<ConversationState> {
    const { conversation } = await this.sideOf(request);
    return stateOf(conversation);
  }

  /**
   * A side agrees or withdraws. The agreement that completes the pair re-stamps the conversation's messages, told as
   * receipts are, so every reader's next poll or stream brings them again, now as written.
   */
  async consent(request: RpcRequest<'messaging.rpc.contact-consent'>): Promise<ConversationState> {
    const { item, side, conversation } = await this.sideOf(request);
    return this.conversations.transaction(async (transaction) => {
      const changed = await this.conversations.setConsent(transaction, conversation.id, side, request.agree);
      if (!changed) throw ALREADY_SHARED();
      if (!sharesContactDetails(conversation) && sharesContactDetails(changed)) {
        await this.publishReceipts(transaction, item.itemCode, await this.conversations.restamp(transaction, conversation.id));
      }
      return stateOf(changed);
    });
  }

  async handoverCode(code: string, ownerUserId: string, now = new Date()): Promise<HandoverCode> {
    const item = await this.activatedItem(code);
    // A co-owner may be the one who meets the finder: they get the same code.
    if (!ownsItem(item, ownerUserId)) throw ITEM_NOT_FOUND();
    const secret = await this.itemOwners.handoverSecret(item.itemCode, randomBytes(32));
    if (!secret) throw ITEM_NOT_FOUND();
    const { code: today, validUntil } = currentHandoverCode(secret, now);
    return { code: today, valid_until: validUntil.toISOString() };
  }

  /**
   * The finder types the code the person in front of them told. Right: the conversation closes and
   * `messaging.conversation.handed-over.v1` tells items to end lost mode. Wrong: 422, and after
   * HANDOVER_MAX_WRONG_PER_HOUR wrong codes within an hour of the first, 429 until that hour is over. The item takes
   * HANDOVER_MAX_TRIES_PER_ITEM_PER_HOUR tries an hour across its conversations (anyone who read the tag can open
   * conversations, 200 an hour), counted before the code is checked, so a try past it is 429 whether right or wrong.
   */
  async handover(request: RpcRequest<'messaging.rpc.handover'>, now = new Date()): Promise<{ closedAt: string }> {
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    if (caller.role !== 'finder') throw RpcError.forbidden(ResponseCode.FORBIDDEN, 'Only the finder of a conversation hands the item over, with their finder token.');
    const secret = await this.itemOwners.handoverSecret(item.itemCode, randomBytes(32));
    if (!secret) throw ITEM_NOT_FOUND();
    const conversationId = caller.conversation.id;
    const outcome = await this.conversations.transaction(async (transaction) => {
      // The item's row first, then the conversation's: the order of the projection's consumers.
      const ofItem = await this.itemOwners.countHandoverTry(transaction, item.itemCode, now);
      if (!ofItem) throw ITEM_NOT_FOUND();
      if (ofItem.tries > HANDOVER_MAX_TRIES_PER_ITEM_PER_HOUR) throw tooManyTries(ofItem.since, now);
      const locked = await this.conversations.lockForHandover(transaction, conversationId);
      if (!locked) throw FORBIDDEN();
      if (locked.closed_at) throw CONVERSATION_CLOSED();
      const windowOpen = locked.handover_failures_since !== null && now.getTime() - locked.handover_failures_since.getTime() < HOUR_MS;
      const failures = windowOpen ? locked.handover_failures : 0;
      if (failures >= HANDOVER_MAX_WRONG_PER_HOUR) throw tooManyTries(locked.handover_failures_since as Date, now);
      if (!isHandoverCode(secret, request.handoverCode, now)) {
        await this.conversations.recordHandoverFailure(transaction, conversationId, failures + 1, windowOpen ? (locked.handover_failures_since as Date) : now);
        return 'wrong' as const;
      }
      await this.conversations.close(transaction, conversationId, now);
      await this.outbox.record(
        transaction,
        'messaging.conversation.handed-over.v1',
        { itemCode: item.itemCode, conversationId, ownerUserId: item.ownerUserId, closedAt: now.toISOString() },
        { aggregateId: item.itemCode, version: await this.conversations.nextThreadVersion(transaction) },
      );
      return 'closed' as const;
    });
    // Thrown after the transaction, so the wrong try it counted is kept.
    if (outcome === 'wrong') throw RpcError.validation({ code: 'invalid' }, 'That is not the owner’s hand-over code.');
    return { closedAt: now.toISOString() };
  }

  // The finder by their token; the owner for the conversation they name, else the latest one.
  private async sideOf(request: { code: string; conversationId?: string; viewerUserId: string | null; finderToken?: string }): Promise<{ item: ItemOwner; side: 'finder' | 'owner'; conversation: ConversationRow }> {
    const item = await this.activatedItem(request.code);
    const caller = threadCaller(item, request.viewerUserId, await this.finderConversation(item, request.finderToken));
    if (caller.role === 'finder') return { item, side: 'finder', conversation: caller.conversation };
    if (caller.role === 'stranger') throw FORBIDDEN();
    const conversation = request.conversationId
      ? await this.conversations.findInItem(item.itemCode, request.conversationId)
      : await this.conversations.findLatest(item.itemCode, { withMessages: false });
    if (!conversation) throw NO_CONVERSATION();
    return { item, side: 'owner', conversation };
  }

  private async activatedItem(input: string): Promise<ItemOwner> {
    const code = parseTagCode(input);
    const item = code ? await this.itemOwners.findByCode(code) : null;
    if (!item) throw ITEM_NOT_FOUND();
    return item;
  }

  private async finderConversation(item: ItemOwner, finderToken: string | undefined): Promise<ConversationRow | null> {
    return finderToken ? this.conversations.findByFinderToken(item.itemCode, hashFinderToken(finderToken)) : null;
  }

  private async publishReceipts(transaction: Parameters<ConversationsRepository['restamp']>[0], itemCode: string, changes: ReceiptChange[]): Promise<void> {
    for (const change of changes) {
      await this.outbox.record(
        transaction,
        'messaging.messages.receipts.v1',
        { itemCode, conversationId: change.conversationId, messageIds: change.messageIds },
        { aggregateId: itemCode, version: change.version },
      );
    }
  }
}

function stateOf(conversation: ConversationRow): ConversationState {
  return {
    conversation_id: conversation.id,
    contact_consent: { finder: conversation.finder_consented_at !== null, owner: conversation.owner_consented_at !== null },
    contact_shared: sharesContactDetails(conversation),
    closed_at: conversation.closed_at?.toISOString() ?? null,
  };
}

// 429 until the hour that began at `since` is over (a thrown answer rolls its transaction back: this try is not counted).
function tooManyTries(since: Date, now: Date): RpcError {
  const waitMs = since.getTime() + HOUR_MS - now.getTime();
  return new RpcError({
    status: 429,
    response_code: ResponseCode.RATE_LIMITED,
    message: 'Too many wrong hand-over codes. Try again later.',
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
  });
}
