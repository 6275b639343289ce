import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { ConversationsService } from './conversations.service';

@Controller()
export class ConversationsRpcController {
  constructor(private readonly conversations: ConversationsService) {}

  @MessagePattern('messaging.rpc.set-finder')
  setFinder(@Payload() request: RpcRequest<'messaging.rpc.set-finder'>): Promise<RpcResponse<'messaging.rpc.set-finder'>> {
    return this.conversations.setFinder(request);
  }

  @MessagePattern('messaging.rpc.post-message')
  postMessage(@Payload() request: RpcRequest<'messaging.rpc.post-message'>): Promise<RpcResponse<'messaging.rpc.post-message'>> {
    return this.conversations.postMessage(request);
  }

  @MessagePattern('messaging.rpc.list-messages')
  listMessages(@Payload() request: RpcRequest<'messaging.rpc.list-messages'>): Promise<RpcResponse<'messaging.rpc.list-messages'>> {
    return this.conversations.listMessages(request);
  }

  @MessagePattern('messaging.rpc.thread-access')
  threadAccess(@Payload() request: RpcRequest<'messaging.rpc.thread-access'>): Promise<RpcResponse<'messaging.rpc.thread-access'>> {
    return this.conversations.threadAccess(request);
  }

  @MessagePattern('messaging.rpc.messages-after')
  messagesAfter(@Payload() request: RpcRequest<'messaging.rpc.messages-after'>): Promise<RpcResponse<'messaging.rpc.messages-after'>> {
    return this.conversations.messagesAfter(request.code, request.after);
  }

  @MessagePattern('messaging.rpc.finder-details')
  finderDetails(@Payload() request: RpcRequest<'messaging.rpc.finder-details'>): Promise<RpcResponse<'messaging.rpc.finder-details'>> {
    return this.conversations.finderDetails(request.code, request.ownerUserId);
  }

  @MessagePattern('messaging.rpc.unread-count')
  async unreadCount(@Payload() request: RpcRequest<'messaging.rpc.unread-count'>): Promise<RpcResponse<'messaging.rpc.unread-count'>> {
    return { count: await this.conversations.unreadCount(request.code, request.ownerUserId) };
  }

  @MessagePattern('messaging.rpc.found-items')
  foundItems(@Payload() request: RpcRequest<'messaging.rpc.found-items'>): Promise<RpcResponse<'messaging.rpc.found-items'>> {
    return this.conversations.foundItems(request.codes, request.ownerUserId);
  }

  @MessagePattern('messaging.rpc.reset')
  async reset(@Payload() request: RpcRequest<'messaging.rpc.reset'>): Promise<RpcResponse<'messaging.rpc.reset'>> {
    await this.conversations.reset(request.code, request.ownerUserId);
    return {};
  }

  @MessagePattern('messaging.rpc.get-finder-contact')
  getFinderContact(@Payload() request: RpcRequest<'messaging.rpc.get-finder-contact'>): Promise<RpcResponse<'messaging.rpc.get-finder-contact'>> {
    return this.conversations.finderContact(request.conversationId);
  }
}
