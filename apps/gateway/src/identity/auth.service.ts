import { Injectable } from '@nestjs/common';
import { emailSchema, ResponseCode, toValidationMap, type EmailBody, type LoginBody, type LoginCodeBody, type RegisterBody, type SetPasswordBody, type TokenResponse, type UserLanguage } from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../http/http-error';
import { MailBudgets } from './mail-budgets';

/** What an e-mail-sending request answers, whether or not the address has an account (S2). */
export interface SentAnswer {
  message: string;
}
const LOGIN_CODE_SENT: SentAnswer = { message: 'If an account uses this address, a login code is on its way.' };
const RESET_LINK_SENT: SentAnswer = { message: 'If an account uses this address, a link to set a new password is on its way.' };
export const DONE = { message: 'Done.' };

/** Logging in and out, login codes, passwords and token refresh: each a call to identity. */
@Injectable()
export class AuthService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly mailBudgets: MailBudgets,
  ) {}

  login(body: LoginBody): Promise<TokenResponse> {
    return this.rpc.request('identity.rpc.login', body);
  }

  register(body: RegisterBody, language: UserLanguage): Promise<TokenResponse> {
    return this.rpc.request('identity.rpc.register', { ...body, language });
  }

  async requestLoginCode(email: unknown, reply: Pick<FastifyReply, 'header'>): Promise<SentAnswer> {
    const address = validEmail(email);
    await this.mailBudgets.take('login-code', address, reply);
    await this.rpc.request('identity.rpc.request-login-code', { email: address });
    return LOGIN_CODE_SENT;
  }

  redeemLoginCode(body: LoginCodeBody): Promise<TokenResponse> {
    return this.rpc.request('identity.rpc.redeem-login-code', body);
  }

  async forgotPassword(body: EmailBody, reply: Pick<FastifyReply, 'header'>): Promise<SentAnswer> {
    await this.mailBudgets.take('password-reset', body.email, reply);
    await this.rpc.request('identity.rpc.request-password-reset', body);
    return RESET_LINK_SENT;
  }

  setPassword(body: SetPasswordBody): Promise<TokenResponse> {
    return this.rpc.request('identity.rpc.set-password', body);
  }

  async updatePassword(user: AuthenticatedUser, password: string): Promise<typeof DONE> {
    await this.rpc.request('identity.rpc.update-password', { userId: user.id, sessionId: user.sessionId, password });
    return DONE;
  }

  /** The bearer token, even an expired one, for a new one while its session lives. */
  refreshToken(token: string | null): Promise<TokenResponse> {
    if (!token) throw new ApiError(401, ResponseCode.UNAUTHORIZED, 'Send the access token to refresh as `Authorization: Bearer <token>`.');
    return this.rpc.request('identity.rpc.refresh-token', { token });
  }

  async logout(user: AuthenticatedUser): Promise<typeof DONE> {
    await this.rpc.request('identity.rpc.logout', { userId: user.id, sessionId: user.sessionId });
    return DONE;
  }
}

function validEmail(value: unknown): string {
  const parsed = emailSchema.safeParse(typeof value === 'string' ? value : undefined);
  if (!parsed.success) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { email: toValidationMap(parsed.error, value)._ ?? 'email' });
  return parsed.data;
}
