import { Injectable } from '@nestjs/common';
import { UsersRepository } from '../accounts/users.repository';
import type { Transaction } from '@homing/platform';
import { LONGEST_MAIL_WINDOW_MS, mayMail } from './mail-limits';
import { MailSendsRepository } from './mail-sends.repository';

export type MailKind = 'login-code' | 'password-reset';

/**
 * Per-address e-mail limits, one budget per kind, kept in PostgreSQL beside the codes and links they guard. The
 * gateway refuses requests past the same budgets with 429 for any address; this one holds when Redis is away.
 */
@Injectable()
export class MailBudget {
  constructor(
    private readonly users: UsersRepository,
    private readonly sends: MailSendsRepository,
  ) {}

  /**
   * Takes one e-mail from the user's budget inside the caller's transaction, or answers false if it is spent, or if
   * the account was erased since the caller found it (nobody to mail: the request then ends as for an unknown
   * address). The user's row is locked first, so concurrent requests for one address cannot both take the last one.
   */
  async take(tx: Transaction, userId: string, kind: MailKind): Promise<boolean> {
    if (!(await this.users.lock(tx, userId))) return false;
    const { sentAt, now } = await this.sends.recent(tx, userId, kind, LONGEST_MAIL_WINDOW_MS);
    if (!mayMail(sentAt, now)) return false;
    await this.sends.record(tx, userId, kind);
    return true;
  }
}
