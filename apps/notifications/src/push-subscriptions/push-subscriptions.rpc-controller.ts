import { Controller } from '@nestjs/common';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { PushSubscriptionsService } from './push-subscriptions.service';

@Controller()
export class PushSubscriptionsRpcController {
  constructor(private readonly subscriptions: PushSubscriptionsService) {}

  @RpcHandler('notifications.rpc.register-push')
  async register(request: RpcRequest<'notifications.rpc.register-push'>): Promise<RpcResponse<'notifications.rpc.register-push'>> {
    await this.subscriptions.register(request.subscriber, request.subscription, request.sessionId);
    return {};
  }

  @RpcHandler('notifications.rpc.reregister-push')
  async reregister(request: RpcRequest<'notifications.rpc.reregister-push'>): Promise<RpcResponse<'notifications.rpc.reregister-push'>> {
    await this.subscriptions.reregister(request.userId, request.oldEndpoint, request.subscription, request.sessionId);
    return {};
  }

  @RpcHandler('notifications.rpc.unregister-push')
  async unregister(request: RpcRequest<'notifications.rpc.unregister-push'>): Promise<RpcResponse<'notifications.rpc.unregister-push'>> {
    await this.subscriptions.unregister(request.userId !== undefined ? { userId: request.userId } : { conversationId: request.conversationId as string }, request.endpoint);
    return {};
  }

  @RpcHandler('notifications.rpc.vapid-public-key')
  async vapidPublicKey(_request: RpcRequest<'notifications.rpc.vapid-public-key'>): Promise<RpcResponse<'notifications.rpc.vapid-public-key'>> {
    return this.subscriptions.vapidPublicKey();
  }
}
