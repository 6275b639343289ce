import { Module } from '@nestjs/common';
import { ConversationsRepository } from './conversations.repository';

/** The conversations' storage, on its own so the item-owners consumer can delete a deleted item's conversations. */
@Module({
  providers: [ConversationsRepository],
  exports: [ConversationsRepository],
})
export class ConversationsStoreModule {}
