import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { QueryErrorScrubber } from '../database/query-error-scrubber';
import { SessionsService } from './sessions.service';

@Controller()
@UseInterceptors(QueryErrorScrubber)
export class SessionsRpcController {
  constructor(private readonly sessions: SessionsService) {}

  @MessagePattern('identity.rpc.refresh-token')
  async refresh(@Payload() request: RpcRequest<'identity.rpc.refresh-token'>): Promise<RpcResponse<'identity.rpc.refresh-token'>> {
    return { token: await this.sessions.refresh(request.token) };
  }

  @MessagePattern('identity.rpc.logout')
  async logout(@Payload() request: RpcRequest<'identity.rpc.logout'>): Promise<RpcResponse<'identity.rpc.logout'>> {
    await this.sessions.logout(request.userId, request.sessionId);
    return {};
  }
}
