import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { PublicItem, RpcRequest } from '@homing/contracts';
import { ItemsService } from './items.service';

@Controller()
export class ItemsRpcController {
  constructor(private readonly items: ItemsService) {}

  @MessagePattern('items.rpc.get-by-code')
  getByCode(@Payload() request: RpcRequest<'items.rpc.get-by-code'>): Promise<PublicItem> {
    return this.items.getByCode(request.code, request.viewerUserId);
  }

  @MessagePattern('items.rpc.create')
  create(@Payload() request: RpcRequest<'items.rpc.create'>): Promise<PublicItem> {
    return this.items.create(request.name, request.ownerUserId, request.idempotencyKey);
  }
}
