import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { ItemsService } from './items.service';

@Controller()
export class ItemsRpcController {
  constructor(private readonly items: ItemsService) {}

  /** The scan's lookup of one code (gateways of the release before ask it). */
  @RpcHandler('items.rpc.get-public')
  getPublic({ code }: Request<'items.rpc.get-public'>): Promise<Response<'items.rpc.get-public'>> {
    return this.items.getPublic(code);
  }

  /** The scans that missed a gateway's cache in one turn of its loop (B1's hottest RPC). */
  @RpcHandler('items.rpc.get-public-many')
  getPublicMany({ codes }: Request<'items.rpc.get-public-many'>): Promise<Response<'items.rpc.get-public-many'>> {
    return this.items.getPublicMany(codes);
  }

  @RpcHandler('items.rpc.create')
  create({ name, ownerUserId, idempotencyKey }: Request<'items.rpc.create'>): Promise<Response<'items.rpc.create'>> {
    return this.items.create(name, ownerUserId, idempotencyKey);
  }

  @RpcHandler('items.rpc.list-owned')
  listOwned(request: Request<'items.rpc.list-owned'>): Promise<Response<'items.rpc.list-owned'>> {
    return this.items.listOwned(request.ownerUserId, request);
  }

  @RpcHandler('items.rpc.get-owned')
  getOwned({ code, ownerUserId }: Request<'items.rpc.get-owned'>): Promise<Response<'items.rpc.get-owned'>> {
    return this.items.getOwned(code, ownerUserId);
  }

  @RpcHandler('items.rpc.update')
  update({ code, ownerUserId, ...changes }: Request<'items.rpc.update'>): Promise<Response<'items.rpc.update'>> {
    return this.items.update(code, ownerUserId, changes);
  }

  @RpcHandler('items.rpc.delete')
  delete({ code, ownerUserId }: Request<'items.rpc.delete'>): Promise<Response<'items.rpc.delete'>> {
    return this.items.delete(code, ownerUserId).then(() => ({}));
  }
}
