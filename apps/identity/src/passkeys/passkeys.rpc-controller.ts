import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { PasskeysService } from './passkeys.service';

@Controller()
export class PasskeysRpcController {
  constructor(private readonly passkeys: PasskeysService) {}

  @RpcHandler('identity.rpc.passkey-registration-options')
  registrationOptions({ userId, sessionId }: Request<'identity.rpc.passkey-registration-options'>): Promise<Response<'identity.rpc.passkey-registration-options'>> {
    return this.passkeys.registrationOptions(userId, sessionId);
  }

  @RpcHandler('identity.rpc.register-passkey')
  register({ userId, sessionId, response }: Request<'identity.rpc.register-passkey'>): Promise<Response<'identity.rpc.register-passkey'>> {
    return this.passkeys.register(userId, sessionId, response);
  }

  @RpcHandler('identity.rpc.list-passkeys')
  async list({ userId }: Request<'identity.rpc.list-passkeys'>): Promise<Response<'identity.rpc.list-passkeys'>> {
    return { passkeys: await this.passkeys.list(userId) };
  }

  @RpcHandler('identity.rpc.rename-passkey')
  rename({ userId, passkeyId, name }: Request<'identity.rpc.rename-passkey'>): Promise<Response<'identity.rpc.rename-passkey'>> {
    return this.passkeys.rename(userId, passkeyId, name);
  }

  @RpcHandler('identity.rpc.delete-passkey')
  async delete({ userId, passkeyId }: Request<'identity.rpc.delete-passkey'>): Promise<Response<'identity.rpc.delete-passkey'>> {
    await this.passkeys.delete(userId, passkeyId);
    return {};
  }

  @RpcHandler('identity.rpc.passkey-login-options')
  loginOptions(_request: Request<'identity.rpc.passkey-login-options'>): Promise<Response<'identity.rpc.passkey-login-options'>> {
    return this.passkeys.loginOptions();
  }

  @RpcHandler('identity.rpc.passkey-login')
  async login({ response }: Request<'identity.rpc.passkey-login'>): Promise<Response<'identity.rpc.passkey-login'>> {
    return { token: await this.passkeys.login(response) };
  }
}
