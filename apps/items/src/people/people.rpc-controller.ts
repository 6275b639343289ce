import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { PeopleService } from './people.service';

@Controller()
export class PeopleRpcController {
  constructor(private readonly people: PeopleService) {}

  @RpcHandler('items.rpc.invite')
  invite(request: Request<'items.rpc.invite'>): Promise<Response<'items.rpc.invite'>> {
    return this.people.invite(request);
  }

  @RpcHandler('items.rpc.list-people')
  list(request: Request<'items.rpc.list-people'>): Promise<Response<'items.rpc.list-people'>> {
    return this.people.list(request);
  }

  @RpcHandler('items.rpc.remove-person')
  remove(request: Request<'items.rpc.remove-person'>): Promise<Response<'items.rpc.remove-person'>> {
    return this.people.remove(request).then(() => ({}));
  }

  @RpcHandler('items.rpc.get-invitation')
  invitation({ token }: Request<'items.rpc.get-invitation'>): Promise<Response<'items.rpc.get-invitation'>> {
    return this.people.invitation(token);
  }

  @RpcHandler('items.rpc.accept-invitation')
  accept(request: Request<'items.rpc.accept-invitation'>): Promise<Response<'items.rpc.accept-invitation'>> {
    return this.people.accept(request);
  }
}
