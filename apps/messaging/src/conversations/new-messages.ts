import { Injectable } from '@nestjs/common';
import { ResponseCode, type MessageAuthor } from '@homing/contracts';
import { OutboxWriter, RpcError, type RowChange, type Transaction } from '@homing/platform';
import { ConversationsRepository, type ConversationRow, type FirstMessageRow, type MessageRow } from './conversations.repository';

export const CONVERSATION_CLOSED = () =>
  new RpcError({ status: 409, response_code: ResponseCode.CONVERSATION_CLOSED, message: 'The item was handed over: this conversation takes no more messages.' });

/**
 * Why a conversation did not take a message that was checked against it a moment before: it was closed by a hand-over,
 * or its finder left (a finder's own message racing their "forget me"), or it is gone, in the meantime.
 */
export function messageRefused(conversation: ConversationRow | null, author: MessageAuthor): RpcError {
  if (conversation?.closed_at) return CONVERSATION_CLOSED();
  if (conversation && author === 'finder') return RpcError.forbidden(ResponseCode.FORBIDDEN, 'This conversation was deleted by its finder.');
  return RpcError.notFound(ResponseCode.NOT_FOUND, 'No such conversation about this item.');
}

// A message's id is its `messaging.message.created.v1`'s messageId and version.
const MESSAGE_ID_IN_EVENT = { version: 'id', data: { messageId: 'id' } } as const;
// A first message's event also takes the item's owner, found by the same statement.
const FIRST_MESSAGE_IN_EVENT = { version: 'id', data: { messageId: 'id', ownerUserId: 'owner_user_id' } } as const;

/**
 * A message and its `messaging.message.created.v1` in one statement (`OutboxWriter.recordFromRow`: the event takes
 * the message's id, drawn after the item's thread lock), however it came: the thread's calls, a shared place, a
 * relayed mail. In `transaction`, or on its own.
 */
@Injectable()
export class NewMessages {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  /** The message's row; refused by what became of its conversation when it no longer takes it. */
  async record(
    transaction: Transaction | undefined,
    change: RowChange<MessageRow>,
    item: { itemCode: string; ownerUserId: string },
    conversationId: string,
    author: MessageAuthor,
  ): Promise<MessageRow> {
    const posted = await this.outbox.recordFromRow(
      transaction,
      change,
      'messaging.message.created.v1',
      { itemCode: item.itemCode, conversationId, author, ownerUserId: item.ownerUserId },
      item.itemCode,
      MESSAGE_ID_IN_EVENT,
    );
    if (!posted) throw messageRefused(await this.conversations.findById(conversationId), author);
    return posted.row;
  }

  /**
   * A finder's first message with the conversation it opens (`ConversationsRepository.firstMessageChange`), the item
   * found by the same statement; null when there is no such item (activated, not deleted): nothing was written.
   */
  async recordFirst(transaction: Transaction | undefined, change: RowChange<FirstMessageRow>, itemCode: string, conversationId: string): Promise<FirstMessageRow | null> {
    const posted = await this.outbox.recordFromRow(transaction, change, 'messaging.message.created.v1', { itemCode, conversationId, author: 'finder' }, itemCode, FIRST_MESSAGE_IN_EVENT);
    return posted?.row ?? null;
  }
}
