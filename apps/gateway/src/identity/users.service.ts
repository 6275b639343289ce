import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { ResponseCode, type DeleteAccountBody, type User, type UserLanguage, type visibleUserSchema } from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { ApiError } from '../http/http-error';
import { MailBudgets } from './mail-budgets';

// Enough for any page of a client; more is an attempt to make the gateway do work for nothing.
const MAX_IDS = 100;
const idsSchema = z.array(z.uuid()).min(1).max(MAX_IDS);

export type VisibleUser = z.infer<typeof visibleUserSchema>;

/** The logged-in user's own account, and other users as they may see them (by id only). */
@Injectable()
export class UsersService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly mailBudgets: MailBudgets,
  ) {}

  async me(user: AuthenticatedUser): Promise<User> {
    const { id, email, language } = await this.rpc.request('identity.rpc.get-user', { userId: user.id });
    return { id, email, language };
  }

  setLanguage(user: AuthenticatedUser, language: UserLanguage): Promise<User> {
    return this.rpc.request('identity.rpc.set-language', { userId: user.id, language });
  }

  /**
   * Erases the caller's account once they proved it is them (password, or a login code of theirs): identity revokes
   * every session at once and the other services erase their part from its event. The gateway forgets the address's
   * e-mail counters.
   */
  async delete(user: AuthenticatedUser, body: DeleteAccountBody): Promise<{ response_code: typeof ResponseCode.USER_DELETED }> {
    const { email } = await this.rpc.request('identity.rpc.delete-user', { userId: user.id, password: body.password, code: body.code });
    await this.mailBudgets.forget(email);
    return { response_code: ResponseCode.USER_DELETED };
  }

  /** `ids` comma-separated, at most 100: only the caller is shown with an e-mail and language. */
  async many(user: AuthenticatedUser, ids: unknown): Promise<VisibleUser[]> {
    const parsed = idsSchema.safeParse(typeof ids === 'string' ? [...new Set(ids.split(',').map((id) => id.trim()).filter(Boolean))] : undefined);
    if (!parsed.success) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { ids: typeof ids === 'string' && ids ? 'invalid' : 'required' });
    const self = parsed.data.includes(user.id) ? await this.me(user) : null;
    return parsed.data.map((id) => (id === user.id && self ? self : { id }));
  }
}
