import { Module } from '@nestjs/common';
import { eventConsumerProviders } from '@homing/platform';
import { ItemOwnersModule } from '../item-owners/item-owners.module';
import { ConversationsStoreModule } from './conversations-store.module';
import { ConversationsRpcController } from './conversations.rpc-controller';
import { ConversationsService } from './conversations.service';
import { ReceiptsConsumer } from './receipts.consumer';

@Module({
  imports: [ConversationsStoreModule, ItemOwnersModule],
  controllers: [ConversationsRpcController],
  providers: [ConversationsService, ...eventConsumerProviders(ReceiptsConsumer)],
})
export class ConversationsModule {}
