import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { ConversationsService } from './conversations.service';

@Controller()
export class ConversationsRpcController {
  constructor(private readonly conversations: ConversationsService) {}

  @RpcHandler('messaging.rpc.set-finder')
  setFinder(request: Request<'messaging.rpc.set-finder'>): Promise<Response<'messaging.rpc.set-finder'>> {
    return this.conversations.setFinder(request);
  }

  @RpcHandler('messaging.rpc.post-message')
  postMessage(request: Request<'messaging.rpc.post-message'>): Promise<Response<'messaging.rpc.post-message'>> {
    return this.conversations.postMessage(request);
  }

  @RpcHandler('messaging.rpc.share-location')
  shareLocation(request: Request<'messaging.rpc.share-location'>): Promise<Response<'messaging.rpc.share-location'>> {
    return this.conversations.shareLocation(request);
  }

  @RpcHandler('messaging.rpc.list-messages')
  listMessages(request: Request<'messaging.rpc.list-messages'>): Promise<Response<'messaging.rpc.list-messages'>> {
    return this.conversations.listMessages(request);
  }

  @RpcHandler('messaging.rpc.thread-access')
  threadAccess(request: Request<'messaging.rpc.thread-access'>): Promise<Response<'messaging.rpc.thread-access'>> {
    return this.conversations.threadAccess(request);
  }

  @RpcHandler('messaging.rpc.messages-after')
  messagesAfter(request: Request<'messaging.rpc.messages-after'>): Promise<Response<'messaging.rpc.messages-after'>> {
    return this.conversations.messagesAfter(request.code, request.after);
  }

  @RpcHandler('messaging.rpc.finder-details')
  finderDetails(request: Request<'messaging.rpc.finder-details'>): Promise<Response<'messaging.rpc.finder-details'>> {
    return this.conversations.finderDetails(request.code, request.ownerUserId, request.conversationId);
  }

  @RpcHandler('messaging.rpc.unread-count')
  async unreadCount({ code, ownerUserId }: Request<'messaging.rpc.unread-count'>): Promise<Response<'messaging.rpc.unread-count'>> {
    return { count: await this.conversations.unreadCount(code, ownerUserId) };
  }

  @RpcHandler('messaging.rpc.found-items')
  foundItems(request: Request<'messaging.rpc.found-items'>): Promise<Response<'messaging.rpc.found-items'>> {
    return this.conversations.foundItems(request.codes, request.ownerUserId);
  }

  @RpcHandler('messaging.rpc.reset')
  reset({ code, ownerUserId }: Request<'messaging.rpc.reset'>): Promise<Response<'messaging.rpc.reset'>> {
    return this.conversations.reset(code, ownerUserId).then(() => ({}));
  }

  @RpcHandler('messaging.rpc.forget-finder')
  forgetFinder(request: Request<'messaging.rpc.forget-finder'>): Promise<Response<'messaging.rpc.forget-finder'>> {
    return this.conversations.forgetFinder(request).then(() => ({}));
  }

  @RpcHandler('messaging.rpc.get-finder-contact')
  getFinderContact(request: Request<'messaging.rpc.get-finder-contact'>): Promise<Response<'messaging.rpc.get-finder-contact'>> {
    return this.conversations.finderContact(request.conversationId, { resumeLink: request.resumeLink, replyAddress: request.replyAddress });
  }

  @RpcHandler('messaging.rpc.resume-finder')
  resumeFinder(request: Request<'messaging.rpc.resume-finder'>): Promise<Response<'messaging.rpc.resume-finder'>> {
    return this.conversations.resumeFinder(request.code, request.token, request.language);
  }

  @RpcHandler('messaging.rpc.request-resume-link')
  requestResumeLink(request: Request<'messaging.rpc.request-resume-link'>): Promise<Response<'messaging.rpc.request-resume-link'>> {
    return this.conversations.requestResumeLink(request.code, request.email).then(() => ({}));
  }

  @RpcHandler('messaging.rpc.unread-since')
  unreadSince(request: Request<'messaging.rpc.unread-since'>): Promise<Response<'messaging.rpc.unread-since'>> {
    return this.conversations.unreadSince(request);
  }
}
