import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { QueryErrorScrubber } from '../database/query-error-scrubber';
import { LoginCodesService } from './login-codes.service';

@Controller()
@UseInterceptors(QueryErrorScrubber)
export class LoginCodesRpcController {
  constructor(private readonly loginCodes: LoginCodesService) {}

  @MessagePattern('identity.rpc.request-login-code')
  async request(@Payload() request: RpcRequest<'identity.rpc.request-login-code'>): Promise<RpcResponse<'identity.rpc.request-login-code'>> {
    await this.loginCodes.request(request.email);
    return {};
  }

  @MessagePattern('identity.rpc.redeem-login-code')
  async redeem(@Payload() request: RpcRequest<'identity.rpc.redeem-login-code'>): Promise<RpcResponse<'identity.rpc.redeem-login-code'>> {
    return { token: await this.loginCodes.redeem(request.code) };
  }
}
