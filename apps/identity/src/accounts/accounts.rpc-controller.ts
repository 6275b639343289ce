import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { RpcRequest, RpcResponse } from '@homing/contracts';
import { QueryErrorScrubber } from '../database/query-error-scrubber';
import { AccountsService } from './accounts.service';

@Controller()
@UseInterceptors(QueryErrorScrubber)
export class AccountsRpcController {
  constructor(private readonly accounts: AccountsService) {}

  @MessagePattern('identity.rpc.login')
  async login(@Payload() request: RpcRequest<'identity.rpc.login'>): Promise<RpcResponse<'identity.rpc.login'>> {
    return { token: await this.accounts.login(request.email, request.password) };
  }

  @MessagePattern('identity.rpc.register')
  async register(@Payload() request: RpcRequest<'identity.rpc.register'>): Promise<RpcResponse<'identity.rpc.register'>> {
    return { token: await this.accounts.register(request) };
  }

  @MessagePattern('identity.rpc.ensure-user')
  ensureUser(@Payload() request: RpcRequest<'identity.rpc.ensure-user'>): Promise<RpcResponse<'identity.rpc.ensure-user'>> {
    return this.accounts.ensureUser(request.email, request.language);
  }

  @MessagePattern('identity.rpc.get-user')
  getUser(@Payload() request: RpcRequest<'identity.rpc.get-user'>): Promise<RpcResponse<'identity.rpc.get-user'>> {
    return this.accounts.getUser(request.userId);
  }

  @MessagePattern('identity.rpc.set-language')
  setLanguage(@Payload() request: RpcRequest<'identity.rpc.set-language'>): Promise<RpcResponse<'identity.rpc.set-language'>> {
    return this.accounts.setLanguage(request.userId, request.language);
  }

  @MessagePattern('identity.rpc.update-password')
  async updatePassword(@Payload() request: RpcRequest<'identity.rpc.update-password'>): Promise<RpcResponse<'identity.rpc.update-password'>> {
    await this.accounts.updatePassword(request.userId, request.sessionId, request.password);
    return {};
  }
}
