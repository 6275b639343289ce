import { Injectable } from '@nestjs/common';
import { ResponseCode, type MessageAuthor, type RelayRecipient, type RpcRequest, type RpcResponse } from '@homing/contracts';
import { IdempotencyKeys, OutboxWriter, RpcError } from '@homing/platform';
import { ConversationsRepository, type ConversationRow } from '../conversations/conversations.repository';
import { CONVERSATION_CLOSED, NewMessages } from '../conversations/new-messages';
import { hashFinderToken, newFinderToken } from '../conversations/finder-tokens';
import { ItemOwnersRepository, ownsItem, type ItemOwner } from '../item-owners/item-owners.repository';
import { ReplyAddressesRepository } from './reply-addresses.repository';

// Unknown, retired, erased and malformed recipients answer alike: the relay says "no such user" to each, no oracle.
const NO_SUCH_RECIPIENT = () => RpcError.notFound(ResponseCode.NOT_FOUND, 'No such recipient.');
const FINDER_LEFT = () => new RpcError({ status: 409, response_code: ResponseCode.FINDER_LEFT, message: 'The finder deleted this conversation: they cannot be answered any more.' });

/** Where a relayed mail goes: the item, its author there, and the conversation (none yet for a mail to a tag). */
interface RelayTarget {
  item: ItemOwner;
  author: MessageAuthor;
  conversation: ConversationRow | null;
}

/**
 * The e-mail relay's side of conversations (apps/mail-relay turns mail into these calls, keeping no body): a mail
 * to a tag opens a finder's conversation with the sender's address; a mail to a reply address is its recipient's
 * message in that conversation. Reply addresses are minted here for notifications' e-mails.
 */
@Injectable()
export class RelayService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly itemOwners: ItemOwnersRepository,
    private readonly replyAddresses: ReplyAddressesRepository,
    private readonly outbox: OutboxWriter,
    private readonly idempotencyKeys: IdempotencyKeys,
    private readonly newMessages: NewMessages,
  ) {}

  /** Whether the address takes mail now (asked at `RCPT TO`), and the tag it is about, for the spam limits. */
  async recipient(recipient: RelayRecipient): Promise<RpcResponse<'messaging.rpc.relay-recipient'>> {
    const target = await this.target(recipient);
    return { itemCode: target.item.itemCode };
  }

  /**
   * A mail's text as a message, with `messaging.message.created.v1` (and for a new conversation
   * `messaging.conversation.opened-by-mail.v1`) in the same transaction. The same mail delivered again (its `mailId`)
   * answers the first result and adds nothing.
   */
  async relayMessage(request: RpcRequest<'messaging.rpc.relay-message'>): Promise<RpcResponse<'messaging.rpc.relay-message'>> {
    const { item, author, conversation: existing } = await this.target(request.recipient);
    const recipientKey = request.recipient.kind === 'tag' ? `tag:${request.recipient.code}` : `reply:${hashFinderToken(request.recipient.token)}`;
    const idempotent = {
      operation: 'messaging.relay-message',
      caller: recipientKey,
      key: request.mailId,
      request: { from: request.from.toLowerCase(), content: request.content },
    };
    return this.idempotencyKeys.run(idempotent, async (manager) => {
      const conversation =
        existing ??
        (await this.conversations.insertConversation(manager, {
          itemCode: item.itemCode,
          // A finder by e-mail has no browser yet: a token nobody holds; their mails' resume links open the page.
          finderTokenHash: hashFinderToken(newFinderToken()),
          finderEmail: request.from,
          finderLanguage: request.language ?? 'en',
        }));
      const row = await this.newMessages.record(manager, this.conversations.messageChange({ conversationId: conversation.id, author, content: request.content }), item, conversation.id, author);
      const messageId = Number(row.id);
      if (!existing) {
        await this.outbox.record(
          manager,
          'messaging.conversation.opened-by-mail.v1',
          { itemCode: item.itemCode, conversationId: conversation.id },
          { aggregateId: item.itemCode, version: await this.conversations.nextThreadVersion(manager) },
        );
      }
      return { itemCode: item.itemCode, conversationId: conversation.id, messageId, author };
    });
  }

  /**
   * A new reply address of the owner (or a co-owner) in a conversation, for an e-mail to them, kept with their user id;
   * null when it is no longer theirs.
   */
  async ownerReplyAddress(conversationId: string, userId: string): Promise<{ token: string | null }> {
    return { token: await this.replyAddresses.mintForOwner(conversationId, userId) };
  }

  private async target(recipient: RelayRecipient): Promise<RelayTarget> {
    if (recipient.kind === 'tag') {
      const item = await this.itemOwners.findByCode(recipient.code);
      if (!item) throw NO_SUCH_RECIPIENT();
      return { item, author: 'finder', conversation: null };
    }
    const address = await this.replyAddresses.find(recipient.token);
    const conversation = address ? await this.conversations.findById(address.conversation_id) : null;
    const item = conversation ? await this.itemOwners.findByCode(conversation.item_code) : null;
    if (!address || !conversation || !item) throw NO_SUCH_RECIPIENT();
    // Handed over: the case is closed to every new message, by mail too.
    if (conversation.closed_at) throw CONVERSATION_CLOSED();
    if (address.recipient === 'finder') {
      // The finder erased themselves: their addresses are gone with their data.
      if (conversation.finder_left_at) throw NO_SUCH_RECIPIENT();
      return { item, author: 'finder', conversation };
    }
    // An owner's (or co-owner's) address stops with their ownership (the item was erased or passed on, they were removed).
    if (!ownsItem(item, address.user_id)) throw NO_SUCH_RECIPIENT();
    if (conversation.finder_left_at) throw FINDER_LEFT();
    return { item, author: 'owner', conversation };
  }
}
