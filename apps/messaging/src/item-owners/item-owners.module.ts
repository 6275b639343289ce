import { Module } from '@nestjs/common';
import { eventConsumerProviders } from '@homing/platform';
import { ConversationsStoreModule } from '../conversations/conversations-store.module';
import { UserErasureConsumer, UserErasureSecondPass } from '../erasure/user-erasure.consumer';
import { ItemOwnersConsumer } from './item-owners.consumer';
import { ItemOwnersRepository } from './item-owners.repository';
import { ItemTransfersConsumer } from './item-transfers.consumer';

@Module({
  imports: [ConversationsStoreModule],
  providers: [ItemOwnersRepository, ...eventConsumerProviders(ItemOwnersConsumer, ItemTransfersConsumer, UserErasureConsumer, UserErasureSecondPass)],
  exports: [ItemOwnersRepository],
})
export class ItemOwnersModule {}
