import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ResponseCode } from '@homing/contracts';
import { IS_PUBLIC_KEY, RpcClient } from '@homing/platform';
import { isAdminRoute } from '../http/api-route.decorator';
import { ApiError } from '../http/http-error';
import { AccessTokens, bearerTokenOf } from './access-tokens';
import type { AuthenticatedRequest, AuthenticatedUser } from './authenticated-user';

/**
 * The one authentication seam of the gateway, global: every route requires a valid access token (ES256, verified
 * with identity's public key) whose session is not revoked, unless it is marked `@Public()`. On a public route a
 * valid token still tells who the caller is (an owner scanning their own tag); an invalid one makes them anonymous.
 * A route for admins (`@ApiRoute({ caller: 'admin' })`) refuses anyone else here, before its pipes validate the body or
 * query: a guard runs before pipes, so a non-admin gets 403, not a 422 telling what the route accepts. The token's
 * `is_admin` is as of its issue, up to an hour ago, so an admin's request is also asked of identity
 * (`identity.rpc.admin-rights`): rights revoked are refused at once. Admin routes are few and rarely called.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly accessTokens: AccessTokens,
    private readonly rpc: RpcClient,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()]) ?? false;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    request.publicRoute = isPublic;
    const token = bearerTokenOf(request);
    if (!token) {
      if (isPublic) return true;
      throw new ApiError(401, ResponseCode.UNAUTHORIZED);
    }
    try {
      request.user = await this.accessTokens.authenticate(token);
    } catch (error) {
      if (isPublic) return true;
      throw error;
    }
    if (isAdminRoute(this.reflector, context.getHandler()) && !(await this.isAdminNow(request.user))) throw new ApiError(403, ResponseCode.FORBIDDEN);
    return true;
  }

  /** The token says so (no round trip when it does not), and identity still does. */
  private async isAdminNow(user: AuthenticatedUser): Promise<boolean> {
    if (!user.isAdmin) return false;
    return (await this.rpc.request('identity.rpc.admin-rights', { userId: user.id })).isAdmin;
  }
}
