import { Module } from '@nestjs/common';
import { ItemsRepository } from './items.repository';
import { ItemsRpcController } from './items.rpc-controller';
import { ItemsService } from './items.service';

@Module({
  controllers: [ItemsRpcController],
  providers: [ItemsRepository, ItemsService],
  exports: [ItemsService, ItemsRepository],
})
export class ItemsModule {}
