import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { TagBatchesService } from './tag-batches.service';

@Controller()
export class TagBatchesRpcController {
  constructor(private readonly batches: TagBatchesService) {}

  @RpcHandler('items.rpc.create-tag-batch')
  create(request: Request<'items.rpc.create-tag-batch'>): Promise<Response<'items.rpc.create-tag-batch'>> {
    return this.batches.create(request);
  }

  @RpcHandler('items.rpc.list-tag-batches')
  // The request is empty: nothing to read from it.
  list(_request: Request<'items.rpc.list-tag-batches'>): Promise<Response<'items.rpc.list-tag-batches'>> {
    return this.batches.list();
  }

  @RpcHandler('items.rpc.get-tag-batch')
  get({ batchId }: Request<'items.rpc.get-tag-batch'>): Promise<Response<'items.rpc.get-tag-batch'>> {
    return this.batches.get(batchId);
  }

  @RpcHandler('items.rpc.tag-batch-codes')
  codes(request: Request<'items.rpc.tag-batch-codes'>): Promise<Response<'items.rpc.tag-batch-codes'>> {
    return this.batches.codes(request);
  }

  @RpcHandler('items.rpc.tag-batch-sheet')
  sheet({ batchId, page }: Request<'items.rpc.tag-batch-sheet'>): Promise<Response<'items.rpc.tag-batch-sheet'>> {
    return this.batches.sheet(batchId, page);
  }
}
