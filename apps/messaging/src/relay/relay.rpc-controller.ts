import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { RelayService } from './relay.service';

@Controller()
export class RelayRpcController {
  constructor(private readonly relay: RelayService) {}

  @RpcHandler('messaging.rpc.relay-recipient')
  recipient(request: Request<'messaging.rpc.relay-recipient'>): Promise<Response<'messaging.rpc.relay-recipient'>> {
    return this.relay.recipient(request.recipient);
  }

  @RpcHandler('messaging.rpc.relay-message')
  relayMessage(request: Request<'messaging.rpc.relay-message'>): Promise<Response<'messaging.rpc.relay-message'>> {
    return this.relay.relayMessage(request);
  }

  @RpcHandler('messaging.rpc.owner-reply-address')
  ownerReplyAddress(request: Request<'messaging.rpc.owner-reply-address'>): Promise<Response<'messaging.rpc.owner-reply-address'>> {
    return this.relay.ownerReplyAddress(request.conversationId, request.userId);
  }
}
