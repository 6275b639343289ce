import { Controller, Injectable, Module, Scope, UseGuards, type CanActivate } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { RpcHandler, rpcHandlersOf, rpcSubjectOf } from './rpc-handler.decorator';

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

const OWNER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';

@Injectable()
class Names {
  readonly prefix = 'named by ';
}

@Controller()
class ItemsRpc {
  constructor(private readonly names: Names) {}

  @RpcHandler('items.rpc.get-owned')
  getOwned(request: RpcRequest<'items.rpc.get-owned'>): Promise<RpcResponse<'items.rpc.get-owned'>> {
    return Promise.resolve({ code: request.code, name: `${this.names.prefix}${request.ownerUserId}` } as RpcResponse<'items.rpc.get-owned'>);
  }

  notAHandler(): string {
    return 'not called';
  }
}

@Controller()
class ItemsRpcKept extends ItemsRpc {}

@Controller()
class ItemsRpcAgain {
  @RpcHandler('items.rpc.get-owned')
  getOwned(request: RpcRequest<'items.rpc.get-owned'>): Promise<RpcResponse<'items.rpc.get-owned'>> {
    return Promise.reject(new Error(`not called: ${request.code}`));
  }
}

class Refuse implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

@Controller()
class GuardedRpc {
  @RpcHandler('items.rpc.delete')
  @UseGuards(Refuse)
  delete(request: RpcRequest<'items.rpc.delete'>): Promise<RpcResponse<'items.rpc.delete'>> {
    return Promise.reject(new Error(`not called: ${request.code}`));
  }
}

@Controller()
class PayloadRpc {
  @RpcHandler('items.rpc.delete')
  delete(@Payload('code') request: RpcRequest<'items.rpc.delete'>): Promise<RpcResponse<'items.rpc.delete'>> {
    return Promise.reject(new Error(`not called: ${request.code}`));
  }
}

@Controller({ scope: Scope.REQUEST })
class PerRequestRpc {
  @RpcHandler('items.rpc.delete')
  delete(request: RpcRequest<'items.rpc.delete'>): Promise<RpcResponse<'items.rpc.delete'>> {
    return Promise.reject(new Error(`not called: ${request.code}`));
  }
}

async function handlersOf(...controllers: Array<new (...args: never[]) => object>) {
  @Module({ controllers, providers: [Names] })
  class HandlersModule {}
  const app = await Test.createTestingModule({ imports: [HandlersModule] }).compile();
  try {
    return rpcHandlersOf(app);
  } finally {
    await app.close();
  }
}

describe('RpcHandler', () => {
  it('marks the method as its subject’s handler', () => {
    expect(rpcSubjectOf(Handlers.prototype.getPublic)).toBe('items.rpc.get-public');
    expect(rpcSubjectOf(ItemsRpc.prototype.notAHandler)).toBeUndefined();
  });

  it('finds each controller’s handlers, bound to the instance Nest made with its dependencies', async () => {
    const handlers = await handlersOf(ItemsRpc);
    expect([...handlers.keys()]).toEqual(['items.rpc.get-owned']);
    const getOwned = handlers.get('items.rpc.get-owned') as (request: RpcRequest<'items.rpc.get-owned'>) => Promise<unknown>;
    await expect(getOwned({ code: 'ABCD', ownerUserId: OWNER })).resolves.toEqual({ code: 'ABCD', name: `named by ${OWNER}` });
  });

  it('finds a handler a controller inherits', async () => {
    const getOwned = (await handlersOf(ItemsRpcKept)).get('items.rpc.get-owned') as (request: RpcRequest<'items.rpc.get-owned'>) => Promise<unknown>;
    await expect(getOwned({ code: 'ABCD', ownerUserId: OWNER })).resolves.toEqual({ code: 'ABCD', name: `named by ${OWNER}` });
  });

  it('refuses a subject two handlers answer', async () => {
    await expect(handlersOf(ItemsRpc, ItemsRpcAgain)).rejects.toThrow('items.rpc.get-owned is answered twice: by ItemsRpc.getOwned and ItemsRpcAgain.getOwned');
  });

  it('refuses a handler on a request-scoped controller, which has no instance to call', async () => {
    await expect(handlersOf(PerRequestRpc)).rejects.toThrow('PerRequestRpc.delete (items.rpc.delete) is on a controller without one shared instance');
  });

  it.each([
    ['a guard', GuardedRpc],
    ['a parameter decorator', PayloadRpc],
  ])('refuses a handler with %s, which would never run', async (_what, controller) => {
    await expect(handlersOf(controller)).rejects.toThrow(`${controller.name}.delete (items.rpc.delete) carries a Nest enhancer or parameter decorator`);
  });
});
