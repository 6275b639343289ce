import { randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { AuthenticationResponseJSON, RegistrationResponseJSON, VerifiedAuthenticationResponse, VerifiedRegistrationResponse } from '@simplewebauthn/server';
import { v7 as uuidv7 } from 'uuid';
import {
  PASSKEY_CHALLENGE_TTL_SECONDS,
  PASSKEY_RECENT_LOGIN_MINUTES,
  PASSKEYS_PER_USER_MAX,
  ResponseCode,
  type Passkey,
  type PasskeyAuthenticationResponse,
  type PasskeyCreationOptions,
  type PasskeyRegistrationResponse,
  type PasskeyRequestOptions,
} from '@homing/contracts';
import { Database, InjectConfig, OutboxWriter, RpcError } from '@homing/platform';
import { invalidCredentials } from '../accounts/credentials';
import { UsersRepository } from '../accounts/users.repository';
import type { IdentityConfig } from '../config/identity.config';
import { LOGIN_FAILURE_MIN_DURATION_MS, untilElapsed } from '../mail-limits/uniform-duration';
import { SessionsRepository } from '../sessions/sessions.repository';
import { SessionsService } from '../sessions/sessions.service';
import { providerOf } from './passkey-providers';
import { PasskeysRepository, type PasskeyRow } from './passkeys.repository';
import { relyingPartyOf, userHandleOf, type RelyingParty } from './relying-party';

// Loaded with the first passkey ceremony rather than at start-up: with its CBOR, COSE and certificate parsers it was
// the heaviest package on identity's start path (B8), for calls a replica seldom serves.
const importWebAuthn = () => Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]).then(([server, helpers]) => ({ ...server, ...helpers }));
let webAuthnLoaded: ReturnType<typeof importWebAuthn> | undefined;
const loadWebAuthn = () => (webAuthnLoaded ??= importWebAuthn());

const notFound = () => RpcError.notFound(ResponseCode.NOT_FOUND, 'Passkey not found.');
const registrationRefused = () => RpcError.validation({ response: 'invalid' }, 'The passkey could not be verified. Try again.');

/** A log-in answer that is refused: every such refusal leaves as the wrong-password answer. */
class PasskeyLoginRefused extends Error {}
const refuse = (why: string): never => {
  throw new PasskeyLoginRefused(why);
};

/**
 * Passkeys (WebAuthn): creating one for a user who logged in recently, listing, renaming and deleting them, and
 * logging in with one. Every ceremony's challenge is made and kept here (PASSKEY_CHALLENGE_TTL_SECONDS, single use);
 * the browser's answer names the challenge in its signed client data, and the answer is checked against that row.
 */
@Injectable()
export class PasskeysService {
  private readonly logger = new Logger(PasskeysService.name);
  private readonly relyingParty: RelyingParty;

  constructor(
    private readonly database: Database,
    private readonly passkeys: PasskeysRepository,
    private readonly users: UsersRepository,
    private readonly sessionsRepository: SessionsRepository,
    private readonly sessions: SessionsService,
    private readonly outbox: OutboxWriter,
    @InjectConfig() config: IdentityConfig,
  ) {
    this.relyingParty = relyingPartyOf(config);
  }

  /** Options to create a passkey, for a session whose log-in is recent; the user's passkeys are excluded. */
  async registrationOptions(userId: string, sessionId: string): Promise<PasskeyCreationOptions> {
    const recent = await this.sessionsRepository.loggedInWithin(undefined, userId, sessionId, PASSKEY_RECENT_LOGIN_MINUTES);
    const user = recent === null ? null : await this.users.findById(undefined, userId);
    if (!user) throw RpcError.notFound(ResponseCode.NOT_FOUND, 'User not found.');
    if (!recent) {
      throw RpcError.forbidden(ResponseCode.RECENT_LOGIN_REQUIRED, `Log in again to add a passkey (a log-in of the last ${PASSKEY_RECENT_LOGIN_MINUTES} minutes is needed).`);
    }
    const existing = await this.passkeys.ofUser(undefined, userId);
    if (existing.length >= PASSKEYS_PER_USER_MAX) throw tooMany();
    const { generateRegistrationOptions } = await loadWebAuthn();
    const options = await generateRegistrationOptions({
      rpName: this.relyingParty.name,
      rpID: this.relyingParty.id,
      userID: userHandleOf(userId),
      userName: user.email,
      userDisplayName: user.email,
      challenge: newChallenge(),
      timeout: PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })),
      // Discoverable, so the log-in needs no address first; user verification where the authenticator can.
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
    });
    await this.passkeys.saveChallenge(options.challenge, { purpose: 'register', userId, sessionId });
    return options as PasskeyCreationOptions;
  }

  /** Verifies the browser's answer to this session's registration challenge and keeps the passkey. */
  async register(userId: string, sessionId: string, response: PasskeyRegistrationResponse): Promise<Passkey> {
    const { verifyRegistrationResponse } = await loadWebAuthn();
    const challenge = await challengeOf(response.response.clientDataJSON);
    const taken = challenge === null ? null : await this.passkeys.takeChallenge(challenge, 'register');
    if (!taken?.live || taken.userId !== userId || taken.sessionId !== sessionId) throw registrationRefused();
    let verified: VerifiedRegistrationResponse;
    try {
      verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge as string,
        expectedOrigin: this.relyingParty.origin,
        expectedRPID: this.relyingParty.id,
        requireUserVerification: false,
      });
    } catch (error) {
      this.logger.warn({ reason: (error as Error).message }, 'passkey registration refused');
      throw registrationRefused();
    }
    if (!verified.verified) throw registrationRefused();
    const info = verified.registrationInfo;
    const aaguid = info.aaguid === '00000000-0000-0000-0000-000000000000' ? null : info.aaguid;
    const saved = await this.database.transaction(async (tx) => {
      const count = await this.passkeys.countOfLockedUser(tx, userId);
      if (count === null) throw RpcError.notFound(ResponseCode.NOT_FOUND, 'User not found.');
      if (count >= PASSKEYS_PER_USER_MAX) throw tooMany();
      // Under the user's lock: a password set with an e-mailed link meanwhile revoked this session and deleted the
      // passkeys it added, so one in flight must not be added after it.
      if ((await this.sessionsRepository.loggedInWithin(tx, userId, sessionId, PASSKEY_RECENT_LOGIN_MINUTES)) === null) throw registrationRefused();
      const row = await this.passkeys.insert(tx, {
        id: uuidv7(),
        userId,
        credentialId: info.credential.id,
        publicKey: info.credential.publicKey,
        counter: info.credential.counter,
        transports: (info.credential.transports ?? []).slice(0, 16),
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        aaguid,
      });
      // The credential is someone's already: excludeCredentials keeps a browser from offering it, so this is no browser.
      if (!row) throw registrationRefused();
      await this.outbox.record(tx, 'identity.passkey.added.v1', { userId, passkeyId: row.id, provider: providerOf(aaguid) }, { aggregateId: userId, version: Date.now() });
      return row;
    });
    return toPasskey(saved);
  }

  async list(userId: string): Promise<Passkey[]> {
    return (await this.passkeys.ofUser(undefined, userId)).map(toPasskey);
  }

  async rename(userId: string, passkeyId: string, name: string): Promise<Passkey> {
    const row = await this.passkeys.rename(undefined, userId, passkeyId, name.trim());
    if (!row) throw notFound();
    return toPasskey(row);
  }

  /**
   * Deletes the passkey and revokes every session opened with it, refreshed ones too, at the gateways at once: who holds
   * the lost phone is logged out. The session the deletion is asked from as well, if the passkey opened it (the call
   * does not say which session asks, and the owner removed the very credential it stands on).
   */
  async delete(userId: string, passkeyId: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      if (!(await this.passkeys.lockForDeletion(tx, userId, passkeyId))) throw notFound();
      await this.sessions.revokeOpenedWith(tx, userId, passkeyId);
      const row = await this.passkeys.delete(tx, userId, passkeyId);
      if (!row) throw notFound();
      await this.outbox.record(tx, 'identity.passkey.deleted.v1', { userId, passkeyId, provider: providerOf(row.aaguid) }, { aggregateId: userId, version: Date.now() });
    });
  }

  /** Options for a log-in with any of this site's passkeys: the browser offers the ones it holds. */
  async loginOptions(): Promise<PasskeyRequestOptions> {
    const { generateAuthenticationOptions } = await loadWebAuthn();
    const options = await generateAuthenticationOptions({
      rpID: this.relyingParty.id,
      challenge: newChallenge(),
      timeout: PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
      userVerification: 'preferred',
    });
    await this.passkeys.saveChallenge(options.challenge, { purpose: 'login' });
    return options as PasskeyRequestOptions;
  }

  /**
   * A session for a verified assertion of a known passkey. Everything else answers as a wrong password does, no
   * sooner than a wrong password's answer: a challenge never issued, used or expired; another origin or relying party;
   * an unknown credential, or a user handle that is not its user's; a bad signature; a counter that did not move on;
   * a credential whose backup eligibility changed (it never may).
   */
  async login(response: PasskeyAuthenticationResponse): Promise<string> {
    const started = performance.now();
    try {
      return await this.verifiedLogin(response);
    } catch (error) {
      if (!(error instanceof PasskeyLoginRefused)) throw error;
      this.logger.warn({ reason: error.message }, 'passkey log-in refused');
      await untilElapsed(started, LOGIN_FAILURE_MIN_DURATION_MS);
      throw invalidCredentials();
    }
  }

  private async verifiedLogin(response: PasskeyAuthenticationResponse): Promise<string> {
    const { isoBase64URL, verifyAuthenticationResponse } = await loadWebAuthn();
    const challenge = (await challengeOf(response.response.clientDataJSON)) ?? refuse('client data unreadable');
    const taken = (await this.passkeys.takeChallenge(challenge, 'login')) ?? refuse('challenge unknown or used');
    if (!taken.live) refuse('challenge expired');
    const passkey = (await this.passkeys.byCredentialId(undefined, response.id)) ?? refuse('credential unknown');
    const userHandle = response.response.userHandle;
    if (userHandle !== undefined && userHandle !== isoBase64URL.fromBuffer(userHandleOf(passkey.userId))) refuse('user handle is not the credential’s');
    let verified: VerifiedAuthenticationResponse;
    try {
      verified = await verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.relyingParty.origin,
        expectedRPID: this.relyingParty.id,
        credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: passkey.transports },
        requireUserVerification: false,
      });
    } catch (error) {
      return refuse(`assertion refused: ${(error as Error).message}`);
    }
    if (!verified.verified) refuse('assertion not verified');
    const info = verified.authenticationInfo;
    if (info.credentialDeviceType !== passkey.deviceType) refuse('backup eligibility changed');
    return this.database.transaction(async (tx) => {
      if (!(await this.passkeys.recordUse(tx, passkey.id, passkey.counter, info.newCounter, info.credentialBackedUp))) refuse('counter did not move on');
      const user = (await this.users.findById(tx, passkey.userId)) ?? refuse('user gone');
      return this.sessions.open(tx, user, { passkeyId: passkey.id });
    });
  }
}

function newChallenge(): Uint8Array<ArrayBuffer> {
  return new Uint8Array(randomBytes(32));
}

/** The challenge the browser signed over, from its client data; null when it cannot be read. */
async function challengeOf(clientDataJSON: string): Promise<string | null> {
  const { decodeClientDataJSON } = await loadWebAuthn();
  try {
    const challenge = decodeClientDataJSON(clientDataJSON).challenge;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 128 ? challenge : null;
  } catch {
    return null;
  }
}

function tooMany(): RpcError {
  return RpcError.conflict(ResponseCode.TOO_MANY_PASSKEYS, `An account holds at most ${PASSKEYS_PER_USER_MAX} passkeys. Delete one first.`);
}

function toPasskey(row: PasskeyRow): Passkey {
  return {
    id: row.id,
    name: row.name,
    provider: providerOf(row.aaguid),
    synced: row.backedUp,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}
