import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { AccountsService } from './accounts.service';

@Controller()
export class AccountsRpcController {
  constructor(private readonly accounts: AccountsService) {}

  @RpcHandler('identity.rpc.login')
  async login({ email, password }: Request<'identity.rpc.login'>): Promise<Response<'identity.rpc.login'>> {
    return { token: await this.accounts.login(email, password) };
  }

  @RpcHandler('identity.rpc.register')
  async register(request: Request<'identity.rpc.register'>): Promise<Response<'identity.rpc.register'>> {
    return { token: await this.accounts.register(request) };
  }

  @RpcHandler('identity.rpc.ensure-user')
  ensureUser({ email, language }: Request<'identity.rpc.ensure-user'>): Promise<Response<'identity.rpc.ensure-user'>> {
    return this.accounts.ensureUser(email, language);
  }

  @RpcHandler('identity.rpc.get-user')
  getUser({ userId }: Request<'identity.rpc.get-user'>): Promise<Response<'identity.rpc.get-user'>> {
    return this.accounts.getUser(userId);
  }

  @RpcHandler('identity.rpc.admin-rights')
  adminRights({ userId }: Request<'identity.rpc.admin-rights'>): Promise<Response<'identity.rpc.admin-rights'>> {
    return this.accounts.adminRights(userId);
  }

  @RpcHandler('identity.rpc.language-of-email')
  languageOfEmail({ email }: Request<'identity.rpc.language-of-email'>): Promise<Response<'identity.rpc.language-of-email'>> {
    return this.accounts.languageOfEmail(email);
  }

  @RpcHandler('identity.rpc.set-language')
  setLanguage({ userId, language }: Request<'identity.rpc.set-language'>): Promise<Response<'identity.rpc.set-language'>> {
    return this.accounts.setLanguage(userId, language);
  }

  @RpcHandler('identity.rpc.delete-user')
  async deleteUser(request: Request<'identity.rpc.delete-user'>): Promise<Response<'identity.rpc.delete-user'>> {
    return { email: await this.accounts.deleteUser(request) };
  }

  @RpcHandler('identity.rpc.update-password')
  updatePassword({ userId, sessionId, password }: Request<'identity.rpc.update-password'>): Promise<Response<'identity.rpc.update-password'>> {
    return this.accounts.updatePassword(userId, sessionId, password).then(() => ({}));
  }
}
