import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { PushSubscriptionsService } from './push-subscriptions.service';

@Controller()
export class PushSubscriptionsRpcController {
  constructor(private readonly subscriptions: PushSubscriptionsService) {}

  @MessagePattern('notifications.rpc.register-push')
  async register(@Payload() request: RpcRequest<'notifications.rpc.register-push'>): Promise<RpcResponse<'notifications.rpc.register-push'>> {
    await this.subscriptions.register(request.subscriber, request.subscription);
    return {};
  }

  @MessagePattern('notifications.rpc.reregister-push')
  async reregister(@Payload() request: RpcRequest<'notifications.rpc.reregister-push'>): Promise<RpcResponse<'notifications.rpc.reregister-push'>> {
    await this.subscriptions.reregister(request.userId, request.oldEndpoint, request.subscription);
    return {};
  }

  @MessagePattern('notifications.rpc.unregister-push')
  async unregister(@Payload() request: RpcRequest<'notifications.rpc.unregister-push'>): Promise<RpcResponse<'notifications.rpc.unregister-push'>> {
    await this.subscriptions.unregister(request.userId, request.endpoint);
    return {};
  }

  @MessagePattern('notifications.rpc.vapid-public-key')
  vapidPublicKey(): RpcResponse<'notifications.rpc.vapid-public-key'> {
    return this.subscriptions.vapidPublicKey();
  }
}
