import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ResponseCode } from '@homing/contracts';
import { OutboxWriter, RpcError, Database, type Transaction } from '@homing/platform';
import { UsersRepository } from '../accounts/users.repository';
import { secretHash } from '../login-codes/login-code';
import { MailBudget } from '../mail-limits/mail-budget';
import { E_MAIL_REQUEST_MIN_DURATION_MS, withMinimumDuration } from '../mail-limits/uniform-duration';
import { providerOf } from '../passkeys/passkey-providers';
import { PasskeysRepository } from '../passkeys/passkeys.repository';
import { PasswordHasher } from '../passwords/password-hasher';
import { SessionsService } from '../sessions/sessions.service';
import { PasswordTokensRepository, type PasswordTokenPurpose, type PasswordTokenRow } from './password-tokens.repository';

// ARCHITECTURE §6: a reset link works for 60 minutes; the set-password link of a new user for 7 days.
export const PASSWORD_TOKEN_TTL_MS: Record<PasswordTokenPurpose, number> = { reset: 60 * 60_000, set: 7 * 24 * 60 * 60_000 };

const invalidToken = () => new RpcError({ status: 422, response_code: ResponseCode.INVALID_PASSWORD_TOKEN, message: 'This link is not valid.' });
const expiredToken = () => new RpcError({ status: 422, response_code: ResponseCode.EXPIRED_PASSWORD_TOKEN, message: 'This link has expired.' });

/** Single-use links that set a password: forgot-password links and the welcome e-mail's set-password link. */
@Injectable()
export class PasswordTokensService {
  constructor(
    private readonly database: Database,
    private readonly users: UsersRepository,
    private readonly tokens: PasswordTokensRepository,
    private readonly mailBudget: MailBudget,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionsService,
    private readonly passkeys: PasskeysRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  /** A new 128-bit token for the user, stored only as its hash; the token itself goes into the e-mail. */
  async issue(tx: Transaction, userId: string, purpose: PasswordTokenPurpose): Promise<string> {
    const token = randomBytes(16).toString('base64url');
    await this.tokens.insert(tx, { tokenHash: secretHash(token), userId, purpose, ttlMs: PASSWORD_TOKEN_TTL_MS[purpose] });
    return token;
  }

  /**
   * A new password was chosen some other way (a logged-in change): every link still open sets none after it, as one
   * used would not (docs/privacy.md). In the caller's transaction, with the new password.
   */
  async useAllOfUser(tx: Transaction, userId: string): Promise<void> {
    await this.tokens.useAllOfUser(tx, userId);
  }

  /** For a known address within its e-mail limits, a reset link; nothing changes until it is used. */
  requestReset(email: string): Promise<void> {
    return withMinimumDuration(E_MAIL_REQUEST_MIN_DURATION_MS, () => this.sendResetLink(email));
  }

  private async sendResetLink(email: string): Promise<void> {
    const user = await this.users.findByEmail(undefined, email);
    if (!user) return;
    await this.database.transaction(async (tx) => {
      if (!(await this.mailBudget.take(tx, user.id, 'password-reset'))) return;
      const token = await this.issue(tx, user.id, 'reset');
      await this.outbox.record(tx, 'identity.password-reset.requested.v1', { userId: user.id, token }, { aggregateId: user.id, version: Date.now() });
    });
  }

  /**
   * Sets the password with a reset or set-password token, uses the token up, deletes the user's passkeys, revokes every
   * session of the user (whoever reset the password may be locking someone out) and logs in with a new one. The link
   * was mailed to the address, so its user is the address's owner: whatever was added before, by someone who had the
   * account without the mailbox (an activation's session for an address that is not the claimer's, a stolen password),
   * must not outlive it. Each deleted passkey is announced (`identity.passkey.deleted.v1`: its owner is e-mailed).
   */
  async setPassword(token: string, password: string): Promise<string> {
    const tokenHash = secretHash(token);
    // Checked before hashing, so a wrong link costs no argon2 time; checked again under the row lock below.
    assertUsable(await this.tokens.find(undefined, tokenHash));
    this.hasher.assertAcceptable(password);
    const passwordHash = await this.hasher.hash(password);
    return this.database.transaction(async (tx) => {
      const row = assertUsable(await this.tokens.find(tx, tokenHash, { forUpdate: true }));
      await this.tokens.useAllOfUser(tx, row.userId);
      // The user's row is locked from here on: a passkey registration waits for it and then finds its session revoked.
      await this.users.setPasswordHash(tx, row.userId, passwordHash);
      // Before the sessions are revoked: a passkey log-in recording its use holds the passkey's row, so the delete waits
      // for it to commit, and the revocation below then sees the session it opened.
      for (const passkey of await this.passkeys.deleteAllOfUser(tx, row.userId)) {
        await this.outbox.record(
          tx,
          'identity.passkey.deleted.v1',
          { userId: row.userId, passkeyId: passkey.id, provider: providerOf(passkey.aaguid) },
          { aggregateId: row.userId, version: Date.now() },
        );
      }
      await this.sessions.revokeAll(tx, row.userId);
      const user = await this.users.findById(tx, row.userId);
      if (!user) throw invalidToken();
      return this.sessions.open(tx, user);
    });
  }
}

function assertUsable(row: PasswordTokenRow | null): PasswordTokenRow {
  if (!row || row.usedAt !== null) throw invalidToken();
  if (row.expired) throw expiredToken();
  return row;
}
