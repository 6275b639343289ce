import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { RpcHandler } from './rpc-handler.decorator';

// The type checks are the point: each `@ts-expect-error` below fails the typecheck tier if the decorator ever
// accepts a handler whose request or response belongs to another subject.
class Handlers {
  @RpcHandler('items.rpc.get-public')
  getPublic(request: RpcRequest<'items.rpc.get-public'>): Promise<RpcResponse<'items.rpc.get-public'>> {
    return Promise.reject(new Error(`not called: ${request.code}`));
  }

  // @ts-expect-error the request is another subject's
  @RpcHandler('messaging.rpc.post-message')
  swappedRequest(request: RpcRequest<'messaging.rpc.set-finder'>): Promise<RpcResponse<'messaging.rpc.post-message'>> {
    return Promise.reject(new Error(`not called: ${request.code}`));
  }

  // @ts-expect-error the response is another subject's
  @RpcHandler('messaging.rpc.set-finder')
  swappedResponse(request: RpcRequest<'messaging.rpc.set-finder'>): Promise<RpcResponse<'messaging.rpc.unread-count'>> {
    return Promise.reject(new Error(`not called: ${request.code}`));
  }
}

describe('RpcHandler', () => {
  it('registers the method under its subject for the NATS transport', () => {
    const patterns: unknown = Reflect.getMetadata(PATTERN_METADATA, Handlers.prototype.getPublic);
    expect(patterns).toEqual(['items.rpc.get-public']);
  });
});
