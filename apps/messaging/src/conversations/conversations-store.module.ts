import { Module } from '@nestjs/common';
import { ConversationsRepository } from './conversations.repository';
import { ErasedConversations } from './erased-conversations';
import { ReplyAddressesRepository } from '../relay/reply-addresses.repository';

/**
 * The conversations' storage (with the relay's reply addresses, which go with them), on its own so the item-owners
 * consumer can delete a deleted item's conversations.
 */
@Module({
  providers: [ConversationsRepository, ErasedConversations, ReplyAddressesRepository],
  exports: [ConversationsRepository, ErasedConversations, ReplyAddressesRepository],
})
export class ConversationsStoreModule {}
