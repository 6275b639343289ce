import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { SessionsService } from './sessions.service';

@Controller()
export class SessionsRpcController {
  constructor(private readonly sessions: SessionsService) {}

  @RpcHandler('identity.rpc.refresh-token')
  async refresh({ token }: Request<'identity.rpc.refresh-token'>): Promise<Response<'identity.rpc.refresh-token'>> {
    return { token: await this.sessions.refresh(token) };
  }

  @RpcHandler('identity.rpc.logout')
  logout({ userId, sessionId }: Request<'identity.rpc.logout'>): Promise<Response<'identity.rpc.logout'>> {
    return this.sessions.logout(userId, sessionId).then(() => ({}));
  }
}
