import { Controller } from '@nestjs/common';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { ItemSettingsRepository } from './item-settings.repository';

/** How each person of an item is told of it; the gateway has checked that the user is of the item. */
@Controller()
export class ItemSettingsRpcController {
  constructor(private readonly settings: ItemSettingsRepository) {}

  @RpcHandler('notifications.rpc.get-item-settings')
  async get({ code, userId }: RpcRequest<'notifications.rpc.get-item-settings'>): Promise<RpcResponse<'notifications.rpc.get-item-settings'>> {
    return (await this.settings.settingsOf(code, [userId])).get(userId) as RpcResponse<'notifications.rpc.get-item-settings'>;
  }

  @RpcHandler('notifications.rpc.set-item-settings')
  set({ code, userId, email, push }: RpcRequest<'notifications.rpc.set-item-settings'>): Promise<RpcResponse<'notifications.rpc.set-item-settings'>> {
    return this.settings.set(code, userId, { email, push });
  }
}
