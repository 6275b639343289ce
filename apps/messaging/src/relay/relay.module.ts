import { Module } from '@nestjs/common';
import { ConversationsStoreModule } from '../conversations/conversations-store.module';
import { ItemOwnersModule } from '../item-owners/item-owners.module';
import { RelayRpcController } from './relay.rpc-controller';
import { RelayService } from './relay.service';

@Module({
  imports: [ConversationsStoreModule, ItemOwnersModule],
  controllers: [RelayRpcController],
  providers: [RelayService],
})
export class RelayModule {}
