import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { LoginCodesService } from './login-codes.service';

@Controller()
export class LoginCodesRpcController {
  constructor(private readonly loginCodes: LoginCodesService) {}

  @RpcHandler('identity.rpc.request-login-code')
  request({ email }: Request<'identity.rpc.request-login-code'>): Promise<Response<'identity.rpc.request-login-code'>> {
    return this.loginCodes.request(email).then(() => ({}));
  }

  @RpcHandler('identity.rpc.redeem-login-code')
  async redeem({ code }: Request<'identity.rpc.redeem-login-code'>): Promise<Response<'identity.rpc.redeem-login-code'>> {
    return { token: await this.loginCodes.redeem(code) };
  }
}
