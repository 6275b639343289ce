import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { PublicItem, RpcRequest, RpcResponse } from '@homing/contracts';
import { ItemsService } from './items.service';

@Controller()
export class ItemsRpcController {
  constructor(private readonly items: ItemsService) {}

  @MessagePattern('items.rpc.get-by-code')
  getByCode(@Payload() request: RpcRequest<'items.rpc.get-by-code'>): Promise<PublicItem> {
    return this.items.getByCode(request.code, request.viewerUserId);
  }

  @MessagePattern('items.rpc.get-public')
  getPublic(@Payload() request: RpcRequest<'items.rpc.get-public'>): Promise<RpcResponse<'items.rpc.get-public'>> {
    return this.items.getPublic(request.code);
  }

  @MessagePattern('items.rpc.create')
  create(@Payload() request: RpcRequest<'items.rpc.create'>): Promise<PublicItem> {
    return this.items.create(request.name, request.ownerUserId, request.idempotencyKey);
  }

  @MessagePattern('items.rpc.list-owned')
  listOwned(@Payload() request: RpcRequest<'items.rpc.list-owned'>): Promise<PublicItem[]> {
    return this.items.listOwned(request.ownerUserId, request);
  }

  @MessagePattern('items.rpc.get-owned')
  getOwned(@Payload() request: RpcRequest<'items.rpc.get-owned'>): Promise<PublicItem> {
    return this.items.getOwned(request.code, request.ownerUserId);
  }

  @MessagePattern('items.rpc.update')
  update(@Payload() request: RpcRequest<'items.rpc.update'>): Promise<PublicItem> {
    return this.items.update(request.code, request.ownerUserId, { name: request.name, reward: request.reward });
  }

  @MessagePattern('items.rpc.delete')
  async delete(@Payload() request: RpcRequest<'items.rpc.delete'>): Promise<Record<string, never>> {
    await this.items.delete(request.code, request.ownerUserId);
    return {};
  }
}
