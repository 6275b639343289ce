import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { TagBatchesService } from './tag-batches.service';

@Controller()
export class TagBatchesRpcController {
  constructor(private readonly batches: TagBatchesService) {}

  @MessagePattern('items.rpc.create-tag-batch')
  create(@Payload() request: RpcRequest<'items.rpc.create-tag-batch'>): Promise<RpcResponse<'items.rpc.create-tag-batch'>> {
    return this.batches.create(request);
  }

  @MessagePattern('items.rpc.tag-batch-sheet')
  sheet(@Payload() request: RpcRequest<'items.rpc.tag-batch-sheet'>): Promise<RpcResponse<'items.rpc.tag-batch-sheet'>> {
    return this.batches.sheet(request.batchId, request.page);
  }
}
