import { Module } from '@nestjs/common';
import { ItemOwnersModule } from '../item-owners/item-owners.module';
import { ConversationsStoreModule } from './conversations-store.module';
import { ConversationsRpcController } from './conversations.rpc-controller';
import { ConversationsService } from './conversations.service';

@Module({
  imports: [ConversationsStoreModule, ItemOwnersModule],
  controllers: [ConversationsRpcController],
  providers: [ConversationsService],
})
export class ConversationsModule {}
