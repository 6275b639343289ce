import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { ResponseCode, type RpcRequest, type RpcResponse, type User, type UserLanguage } from '@homing/contracts';
import { OutboxWriter, RpcError, Database, InjectConfig, type Transaction } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';
import { LOGIN_FAILURE_MIN_DURATION_MS, untilElapsed } from '../mail-limits/uniform-duration';
import { PasswordHasher } from '../passwords/password-hasher';
import { LoginCodesService } from '../login-codes/login-codes.service';
import { PasswordTokensService } from '../password-tokens/password-tokens.service';
import { SessionsService } from '../sessions/sessions.service';
import { invalidCredentials } from './credentials';
import { lockDurationMs } from './login-lock';
import { UsersRepository, type UserContact, type UserRow } from './users.repository';

const userNotFound = () => RpcError.notFound(ResponseCode.NOT_FOUND, 'User not found.');

/** Users: log-in with a password, registration, creation at activation, profile, password changes. */
@Injectable()
export class AccountsService {
  constructor(
    private readonly database: Database,
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionsService,
    private readonly passwordTokens: PasswordTokensService,
    private readonly loginCodes: LoginCodesService,
    private readonly outbox: OutboxWriter,
    @InjectConfig() private readonly config: IdentityConfig,
  ) {}

  /**
   * A session for the right password. A wrong password, an unknown address (a dummy hash is verified, so the time
   * is the same) and a locked account (the password is still verified, and ignored) all answer 401 alike.
   * The password is verified against the row read before hashing; the session is opened under a lock of that row, only
   * if its hash is still the one verified (a reset or change committed meanwhile revoked the sessions it saw, not this
   * one) and the account is not locked now (failures of guesses sent at once, counted while this one hashed).
   */
  async login(email: string, password: string): Promise<string> {
    const started = performance.now();
    const user = await this.verifyPassword(await this.users.findByEmail(undefined, email), password, started);
    const token = await this.database.transaction(async (tx) => {
      // An account erased meanwhile answers as an unknown address.
      if ((await this.stillVerified(tx, user)) !== true) return null;
      return this.sessions.open(tx, user);
    });
    if (token === null) return this.refuseLate(started);
    return token;
  }

  /** Self-registration, when enabled: the user with their password, logged in. */
  async register(request: RpcRequest<'identity.rpc.register'>): Promise<string> {
    if (!this.config.REGISTRATION_ENABLED) throw RpcError.forbidden(ResponseCode.REGISTRATION_DISABLED, 'Registration is disabled.');
    this.hasher.assertAcceptable(request.password);
    const passwordHash = await this.hasher.hash(request.password);
    return this.database.transaction(async (tx) => {
      const user = await this.users.insert(tx, { id: uuidv7(), email: request.email, passwordHash, language: request.language });
      if (!user) throw RpcError.conflict(ResponseCode.EMAIL_ALREADY_REGISTERED, 'An account with this email address already exists.');
      await this.outbox.record(tx, 'identity.user.registered.v1', { userId: user.id }, { aggregateId: user.id, version: 1 });
      return this.sessions.open(tx, user);
    });
  }

  /**
   * The user with this address, created (without a password) if new: a new user gets a set-password link, a
   * session to continue in, and a welcome e-mail (the event). Concurrent calls for one new address create one user.
   */
  async ensureUser(email: string, language: UserLanguage): Promise<RpcResponse<'identity.rpc.ensure-user'>> {
    return this.database.transaction(async (tx) => {
      const created = await this.users.insert(tx, { id: uuidv7(), email, passwordHash: null, language });
      if (!created) {
        const existing = await this.users.findByEmail(tx, email);
        if (!existing) throw new Error('a user neither inserted nor found');
        return { userId: existing.id, created: false };
      }
      const passwordToken = await this.passwordTokens.issue(tx, created.id, 'set');
      const loginToken = await this.sessions.open(tx, created);
      await this.outbox.record(tx, 'identity.user.registered.v1', { userId: created.id, passwordToken }, { aggregateId: created.id, version: 1 });
      return { userId: created.id, created: true, passwordToken, loginToken };
    });
  }

  async getUser(userId: string): Promise<UserContact> {
    const contact = await this.users.contactOf(userId);
    if (!contact) throw userNotFound();
    return contact;
  }

  /** Whether the user is an admin as of now (no such user: not one), for the gateway's admin routes. */
  async adminRights(userId: string): Promise<{ isAdmin: boolean }> {
    const user = await this.users.findById(undefined, userId);
    return { isAdmin: user?.isAdmin ?? false };
  }

  /** The language of the account with this address (any case), null when there is none: for an invitation's e-mail. */
  async languageOfEmail(email: string): Promise<{ language: UserLanguage | null }> {
    const user = await this.users.findByEmail(undefined, email);
    return { language: user?.language ?? null };
  }

  async setLanguage(userId: string, language: UserLanguage): Promise<User> {
    const user = await this.users.setLanguage(undefined, userId, language);
    if (!user) throw userNotFound();
    return toUser(user);
  }

  /**
   * A logged-in user's new password; every other session of theirs is revoked, and every reset or set-password link
   * still open is used up: a link mailed before the change (a welcome mail's, valid 7 days, or a reset they did not
   * ask for) must not set the password after it.
   */
  async updatePassword(userId: string, sessionId: string, password: string): Promise<void> {
    this.hasher.assertAcceptable(password);
    const passwordHash = await this.hasher.hash(password);
    await this.database.transaction(async (tx) => {
      if (!(await this.users.setPasswordHash(tx, userId, passwordHash))) throw userNotFound();
      await this.passwordTokens.useAllOfUser(tx, userId);
      await this.sessions.revokeAll(tx, userId, sessionId);
    });
  }

  /**
   * Erases the user once they proved it is them again: by their password (checked like a log-in: a wrong one counts
   * towards the lock, and a locked account is refused alike) or by a login code of theirs. One transaction revokes
   * every session at the gateways, deletes the user (sessions, codes, links and mail limits go with the row), and
   * records `identity.user.deleted.v1`, on which every other service erases its part, and the farewell e-mail's
   * event, the one place the address is still needed. Answers the address that was erased.
   */
  async deleteUser(request: RpcRequest<'identity.rpc.delete-user'>): Promise<string> {
    const user = await this.users.findById(undefined, request.userId);
    if (!user) throw userNotFound();
    const started = performance.now();
    if (request.code === undefined) await this.verifyPassword(user, request.password ?? '', started);
    const erased = await this.database.transaction(async (tx) => {
      if (request.code !== undefined) {
        await this.loginCodes.consumeOwn(tx, user.id, request.code);
        // The user's row before their sessions, as a password's erasure and a passkey's deletion take them: a deletion
        // in flight finishes first rather than deadlocking with this one.
        if (!(await this.users.lock(tx, user.id))) throw userNotFound();
      } else {
        const verified = await this.stillVerified(tx, user);
        if (verified === null) throw userNotFound();
        if (!verified) return false;
      }
      await this.sessions.revokeAll(tx, user.id);
      if (!(await this.users.delete(tx, user.id))) throw userNotFound();
      await this.outbox.record(tx, 'identity.user.deleted.v1', { userId: user.id }, { aggregateId: user.id, version: Date.now() });
      await this.outbox.record(tx, 'identity.user.farewell.v1', { email: user.email, language: user.language }, { aggregateId: user.id, version: Date.now() });
      return true;
    });
    if (!erased) return this.refuseLate(started);
    return user.email;
  }

  /**
   * The password check of a log-in (and of an erasure): the user back for the right password; 401 alike for a wrong
   * one, an unknown user (a dummy hash is verified, so the time is the same) and a locked account, none sooner than
   * `LOGIN_FAILURE_MIN_DURATION_MS` after `started`.
   */
  private async verifyPassword(user: UserRow | null, password: string, started: number): Promise<UserRow> {
    const locked = user?.lockedUntil != null && user.lockedUntil > user.now;
    const matches = await this.hasher.verify(user?.passwordHash ?? null, password);
    if (!user || locked || !matches) {
      // Tries while locked do not count: the lock grows with failures after it ends, not with its own traffic.
      if (user && !locked) await this.countFailure(user.id);
      await untilElapsed(started, LOGIN_FAILURE_MIN_DURATION_MS);
      throw invalidCredentials();
    }
    return user;
  }

  /**
   * In the transaction that acts on a verified password, with the user's row locked: false when the password verified
   * is no longer theirs, or the account has been locked since it was read; null when the account is gone; else true,
   * and the failures counted so far are cleared.
   */
  private async stillVerified(tx: Transaction, user: UserRow): Promise<boolean | null> {
    const current = await this.users.lockForLogin(tx, user.id);
    if (!current) return null;
    if (current.passwordHash !== user.passwordHash || current.locked) return false;
    if (current.failedLogins > 0) await this.users.clearFailedLogins(tx, user.id);
    return true;
  }

  /** The answer of a wrong password, for a password verified but refused afterwards: no sooner than a wrong one's. */
  private async refuseLate(started: number): Promise<never> {
    await untilElapsed(started, LOGIN_FAILURE_MIN_DURATION_MS);
    throw invalidCredentials();
  }

  private async countFailure(userId: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      const failures = await this.users.countFailedLogin(tx, userId);
      const lockMs = lockDurationMs(failures);
      if (lockMs > 0) await this.users.lockFor(tx, userId, lockMs);
    });
  }
}

function toUser(user: UserRow): User {
  return { id: user.id, email: user.email, language: user.language };
}
