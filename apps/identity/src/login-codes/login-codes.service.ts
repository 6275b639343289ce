import { Injectable } from '@nestjs/common';
import { ResponseCode } from '@homing/contracts';
import { OutboxWriter, RpcError, Database, InjectConfig, type Transaction } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';
import { UsersRepository } from '../accounts/users.repository';
import { invalidCredentials } from '../accounts/credentials';
import { MailBudget } from '../mail-limits/mail-budget';
import { E_MAIL_REQUEST_MIN_DURATION_MS, withMinimumDuration } from '../mail-limits/uniform-duration';
import { SessionsService } from '../sessions/sessions.service';
import { generateLoginCode, locatorOf, LOGIN_CODE_MAX_ATTEMPTS, LOGIN_CODE_TTL_MS, normaliseLoginCode, loginCodeHash } from './login-code';
import { LoginCodesRepository } from './login-codes.repository';

/** Log-in by a code sent by e-mail (`GET /magic-link`, `POST /magic-link/login`). */
@Injectable()
export class LoginCodesService {
  constructor(
    private readonly database: Database,
    private readonly users: UsersRepository,
    private readonly codes: LoginCodesRepository,
    private readonly mailBudget: MailBudget,
    private readonly sessions: SessionsService,
    private readonly outbox: OutboxWriter,
    @InjectConfig() private readonly config: IdentityConfig,
  ) {}

  /**
   * For a known address within its e-mail limits, a new code (superseding the last) and an event for the
   * e-mail. Unknown addresses and spent limits change nothing; the caller cannot tell the cases apart.
   */
  request(email: string): Promise<void> {
    return withMinimumDuration(E_MAIL_REQUEST_MIN_DURATION_MS, () => this.sendCode(email));
  }

  private async sendCode(email: string): Promise<void> {
    const user = await this.users.findByEmail(undefined, email);
    if (!user) return;
    await this.database.transaction(async (tx) => {
      if (!(await this.mailBudget.take(tx, user.id, 'login-code'))) return;
      const code = generateLoginCode();
      await this.codes.replace(tx, { userId: user.id, locator: locatorOf(code), codeHash: loginCodeHash(code, this.config.LOGIN_CODE_KEY), ttlMs: LOGIN_CODE_TTL_MS });
      // The code's aggregate is the user's current code; a newer request has a later version (its time).
      await this.outbox.record(tx, 'identity.login-code.requested.v1', { userId: user.id, code }, { aggregateId: user.id, version: Date.now() });
    });
  }

  /** A session for the code's user; 401 for a wrong, used or burnt code, 422 LOGIN_CODE_EXPIRED for an expired one. */
  async redeem(input: string): Promise<string> {
    const code = normaliseLoginCode(input);
    if (!code) throw invalidCredentials();
    const codeHash = loginCodeHash(code, this.config.LOGIN_CODE_KEY);
    await this.codes.countTry(undefined, codeHash, locatorOf(code));
    const token = await this.database.transaction(async (tx) => {
      const userId = await this.codes.consume(tx, codeHash, LOGIN_CODE_MAX_ATTEMPTS);
      if (!userId) return null;
      const user = await this.users.findById(tx, userId);
      return user ? this.sessions.open(tx, user) : null;
    });
    if (token) return token;
    return this.refuse(codeHash);
  }

  /**
   * Uses a code of this user inside the caller's transaction (the erasure's proof): a code of anyone else, wrong, used
   * or burnt answers 401 and an expired one 422, exactly as at log-in, and a wrong one counts as a wrong try. Thrown
   * answers roll the caller's transaction back; the try is counted before, outside it (the caller's transaction has
   * locked no code yet: this is its first step).
   */
  async consumeOwn(tx: Transaction, userId: string, input: string): Promise<void> {
    const code = normaliseLoginCode(input);
    if (!code) throw invalidCredentials();
    const codeHash = loginCodeHash(code, this.config.LOGIN_CODE_KEY);
    await this.codes.countTry(undefined, codeHash, locatorOf(code));
    if (await this.codes.consume(tx, codeHash, LOGIN_CODE_MAX_ATTEMPTS, userId)) return;
    await this.refuse(codeHash);
  }

  // The try was counted before it was checked; what is left is which refusal to answer.
  private async refuse(codeHash: string): Promise<never> {
    const state = await this.codes.stateOf(undefined, codeHash);
    if (state?.expired && state.usedAt === null && state.attempts < LOGIN_CODE_MAX_ATTEMPTS) {
      throw new RpcError({ status: 422, response_code: ResponseCode.LOGIN_CODE_EXPIRED, message: 'Your login code has expired.' });
    }
    throw invalidCredentials();
  }
}
