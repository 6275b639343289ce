import { Module } from '@nestjs/common';
import { ConversationsRepository } from './conversations.repository';
import { ErasedConversations } from './erased-conversations';

/** The conversations' storage, on its own so the item-owners consumer can delete a deleted item's conversations. */
@Module({
  providers: [ConversationsRepository, ErasedConversations],
  exports: [ConversationsRepository, ErasedConversations],
})
export class ConversationsStoreModule {}
