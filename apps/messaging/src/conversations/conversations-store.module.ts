import { Module } from '@nestjs/common';
import { ConversationsRepository } from './conversations.repository';
import { ErasedConversations } from './erased-conversations';
import { NewMessages } from './new-messages';
import { ReplyAddressesRepository } from '../relay/reply-addresses.repository';

/**
 * The conversations' storage (with the relay's reply addresses, which go with them, and the one way a message is
 * written), on its own so the item-owners consumer can delete a deleted item's conversations.
 */
@Module({
  providers: [ConversationsRepository, ErasedConversations, NewMessages, ReplyAddressesRepository],
  exports: [ConversationsRepository, ErasedConversations, NewMessages, ReplyAddressesRepository],
})
export class ConversationsStoreModule {}
