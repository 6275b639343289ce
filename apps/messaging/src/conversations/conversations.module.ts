import { Module } from '@nestjs/common';
import { eventConsumerProviders } from '@homing/platform';
import { ItemOwnersModule } from '../item-owners/item-owners.module';
import { ConversationsStoreModule } from './conversations-store.module';
import { ConversationsRpcController } from './conversations.rpc-controller';
import { ConversationsService } from './conversations.service';
import { ReceiptsConsumer } from './receipts.consumer';
import { SafeHandoverRpcController } from './safe-handover.rpc-controller';
import { SafeHandoverService } from './safe-handover.service';

@Module({
  imports: [ConversationsStoreModule, ItemOwnersModule],
  controllers: [ConversationsRpcController, SafeHandoverRpcController],
  providers: [ConversationsService, SafeHandoverService, ...eventConsumerProviders(ReceiptsConsumer)],
})
export class ConversationsModule {}
