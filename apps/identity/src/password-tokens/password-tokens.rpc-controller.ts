import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { QueryErrorScrubber } from '../database/query-error-scrubber';
import { PasswordTokensService } from './password-tokens.service';

@Controller()
@UseInterceptors(QueryErrorScrubber)
export class PasswordTokensRpcController {
  constructor(private readonly passwordTokens: PasswordTokensService) {}

  @MessagePattern('identity.rpc.request-password-reset')
  async requestReset(@Payload() request: RpcRequest<'identity.rpc.request-password-reset'>): Promise<RpcResponse<'identity.rpc.request-password-reset'>> {
    await this.passwordTokens.requestReset(request.email);
    return {};
  }

  @MessagePattern('identity.rpc.set-password')
  async setPassword(@Payload() request: RpcRequest<'identity.rpc.set-password'>): Promise<RpcResponse<'identity.rpc.set-password'>> {
    return { token: await this.passwordTokens.setPassword(request.token, request.password) };
  }
}
