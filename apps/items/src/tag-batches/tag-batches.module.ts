import { Module } from '@nestjs/common';
import { TagBatchesRepository } from './tag-batches.repository';
import { TagBatchesRpcController } from './tag-batches.rpc-controller';
import { TagBatchesService } from './tag-batches.service';

@Module({
  controllers: [TagBatchesRpcController],
  providers: [TagBatchesRepository, TagBatchesService],
  exports: [TagBatchesRepository],
})
export class TagBatchesModule {}
