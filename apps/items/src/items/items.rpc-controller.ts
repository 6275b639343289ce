import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { ItemsService } from './items.service';

/** `items.rpc.get-public` and `items.rpc.get-public-many`, the scan's lookups, are plain handlers (service.ts: plainRpcHandlers). */
@Controller()
export class ItemsRpcController {
  constructor(private readonly items: ItemsService) {}

  @RpcHandler('items.rpc.create')
  create(@Payload() { name, ownerUserId, idempotencyKey }: Request<'items.rpc.create'>): Promise<Response<'items.rpc.create'>> {
    return this.items.create(name, ownerUserId, idempotencyKey);
  }

  @RpcHandler('items.rpc.list-owned')
  listOwned(@Payload() request: Request<'items.rpc.list-owned'>): Promise<Response<'items.rpc.list-owned'>> {
    return this.items.listOwned(request.ownerUserId, request);
  }

  @RpcHandler('items.rpc.get-owned')
  getOwned(@Payload() { code, ownerUserId }: Request<'items.rpc.get-owned'>): Promise<Response<'items.rpc.get-owned'>> {
    return this.items.getOwned(code, ownerUserId);
  }

  @RpcHandler('items.rpc.update')
  update(@Payload() { code, ownerUserId, ...changes }: Request<'items.rpc.update'>): Promise<Response<'items.rpc.update'>> {
    return this.items.update(code, ownerUserId, changes);
  }

  @RpcHandler('items.rpc.delete')
  delete(@Payload() { code, ownerUserId }: Request<'items.rpc.delete'>): Promise<Response<'items.rpc.delete'>> {
    return this.items.delete(code, ownerUserId).then(() => ({}));
  }
}
