import { Injectable } from '@nestjs/common';
import { ResponseCode, type PushReregisterBody, type PushSubscriptionBody, type VapidPublicKey } from '@homing/contracts';
import { RpcClient, RpcError } from '@homing/platform';
import { ApiError } from '../http/http-error';

/** Web push: the application server key, and the subscriptions of owners and finders (kept by notifications). */
@Injectable()
export class PushService {
  constructor(private readonly rpc: RpcClient) {}

  vapidPublicKey(): Promise<VapidPublicKey> {
    return this.rpc.request('notifications.rpc.vapid-public-key', {});
  }

  /** With the owner's session, which notifications checks again once the subscription is stored (an erasure revokes it). */
  async registerOwner(owner: { id: string; sessionId: string }, subscription: PushSubscriptionBody): Promise<void> {
    await this.rpc.request('notifications.rpc.register-push', { subscriber: { userId: owner.id }, subscription, sessionId: owner.sessionId });
  }

  async reregisterOwner(owner: { id: string; sessionId: string }, { old_endpoint: oldEndpoint, ...subscription }: PushReregisterBody): Promise<void> {
    await this.rpc.request('notifications.rpc.reregister-push', { userId: owner.id, oldEndpoint, subscription, sessionId: owner.sessionId });
  }

  async unregisterOwner(userId: string, endpoint: string): Promise<void> {
    await this.rpc.request('notifications.rpc.unregister-push', { userId, endpoint });
  }

  /**
   * A finder's subscription, kept only if their conversation is still theirs once it is stored. A reset, the item's
   * deletion or the finder's "forget me" commits in messaging, and only then do its events reach notifications, which
   * deletes the conversation's subscriptions: one stored after that deletion would stay for ever. So the token is
   * checked again after storing: refused now, the subscription is taken back; still taken, any erasure that follows
   * finds the subscription stored and deletes it.
   */
  async registerFinder(code: string, finderToken: string | undefined, subscription: PushSubscriptionBody): Promise<void> {
    const conversationId = await this.finderConversation(code, finderToken);
    await this.rpc.request('notifications.rpc.register-push', { subscriber: { conversationId }, subscription });
    try {
      if ((await this.finderConversation(code, finderToken)) === conversationId) return;
    } catch (error) {
      if (!(error instanceof ApiError || (error instanceof RpcError && (error.body.status === 403 || error.body.status === 404)))) throw error;
    }
    await this.rpc.request('notifications.rpc.unregister-push', { conversationId, endpoint: subscription.endpoint });
    throw new ApiError(403, ResponseCode.FORBIDDEN, 'This conversation was deleted meanwhile.');
  }

  /**
   * The conversation a finder token opens, as messaging checks it for the finder's own thread (403 for a token of
   * another item or of a reset conversation). A finder who has not written yet has no messages to be told about.
   */
  private async finderConversation(code: string, finderToken: string | undefined): Promise<string> {
    if (!finderToken) throw new ApiError(403, ResponseCode.FORBIDDEN, 'Only the finder who wrote about this item can subscribe.');
    const messages = await this.rpc.request('messaging.rpc.list-messages', { code, viewerUserId: null, finderToken });
    const conversationId = messages[0]?.conversation_id;
    if (!conversationId) throw new ApiError(403, ResponseCode.FORBIDDEN, 'Write to the owner first, then subscribe.');
    return conversationId;
  }
}
