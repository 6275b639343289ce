import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { PasswordTokensService } from './password-tokens.service';

@Controller()
export class PasswordTokensRpcController {
  constructor(private readonly passwordTokens: PasswordTokensService) {}

  @RpcHandler('identity.rpc.request-password-reset')
  requestReset({ email }: Request<'identity.rpc.request-password-reset'>): Promise<Response<'identity.rpc.request-password-reset'>> {
    return this.passwordTokens.requestReset(email).then(() => ({}));
  }

  @RpcHandler('identity.rpc.set-password')
  async setPassword({ token, password }: Request<'identity.rpc.set-password'>): Promise<Response<'identity.rpc.set-password'>> {
    return { token: await this.passwordTokens.setPassword(token, password) };
  }
}
