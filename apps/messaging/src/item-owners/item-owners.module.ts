import { Module } from '@nestjs/common';
import { eventConsumerProviders } from '@homing/platform';
import { ConversationsStoreModule } from '../conversations/conversations-store.module';
import { UserErasureConsumer } from '../erasure/user-erasure.consumer';
import { ItemOwnersConsumer } from './item-owners.consumer';
import { ItemOwnersRepository } from './item-owners.repository';

@Module({
  imports: [ConversationsStoreModule],
  providers: [ItemOwnersRepository, ...eventConsumerProviders(ItemOwnersConsumer, UserErasureConsumer)],
  exports: [ItemOwnersRepository],
})
export class ItemOwnersModule {}
