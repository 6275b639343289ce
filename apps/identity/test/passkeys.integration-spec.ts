import { randomInt, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { ResponseCode, revokedSessionKey, type PasskeyAuthenticationResponse, type PasskeyRegistrationResponse } from '@homing/contracts';
import { verifyAccessToken } from '@homing/platform';
import { expectEventually, SoftAuthenticator, strangerUserHandle, waitForEvent } from '@homing/testing';
import { claimsOf, IdentityHarness } from './identity-harness';

// Passkeys against the built identity service on real PostgreSQL, NATS and Redis, with a software authenticator
// answering the ceremonies as a browser would: registration after a recent log-in, log-in, and every refusal a
// relying party owes (a replayed or expired challenge, another origin, a counter gone back, an unknown credential),
// each answered exactly as a wrong password is.
describe('identity: passkeys', () => {
  const ORIGIN = 'https://owners.homing.test';
  const identity = new IdentityHarness({ REGISTRATION_ENABLED: 'true', PUBLIC_URL: `${ORIGIN}/` });
  const password = 'a long and uncommon passphrase';
  let wrongPasswordAnswer: unknown;

  beforeAll(async () => {
    await identity.start();
    const email = `wrong-${randomUUID().slice(0, 8)}@example.com`;
    await identity.ok('identity.rpc.register', { email, password, language: 'en' });
    wrongPasswordAnswer = await identity.refused('identity.rpc.login', { email, password: 'not the password at all' });
  });
  afterAll(() => identity.stop());

  /** A new user, logged in just now: their id and session. */
  async function newOwner(): Promise<{ userId: string; sessionId: string; email: string }> {
    const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
    const { token } = await identity.ok('identity.rpc.register', { email, password, language: 'nl' });
    const claims = claimsOf(token);
    return { userId: claims.id, sessionId: claims.sid, email };
  }

  /** A user with a passkey on a new software authenticator. */
  async function ownerWithPasskey(options: { synced?: boolean; aaguid?: string } = {}) {
    const owner = await newOwner();
    const authenticator = new SoftAuthenticator(options);
    const creation = await identity.ok('identity.rpc.passkey-registration-options', owner);
    const passkey = await identity.ok('identity.rpc.register-passkey', {
      ...owner,
      response: authenticator.register(creation, { origin: ORIGIN }) as PasskeyRegistrationResponse,
    });
    return { ...owner, authenticator, passkey };
  }

  const assertion = (authenticator: SoftAuthenticator, options: { challenge: string; rpId?: string }, context: Partial<Parameters<SoftAuthenticator['authenticate']>[1]> = {}) =>
    authenticator.authenticate(options, { origin: ORIGIN, ...context }) as PasskeyAuthenticationResponse;

  /** A log-in with the authenticator's passkey: its first access token. */
  async function logInWith(authenticator: SoftAuthenticator): Promise<string> {
    const options = await identity.ok('identity.rpc.passkey-login-options', {});
    return (await identity.ok('identity.rpc.passkey-login', { response: assertion(authenticator, options) })).token;
  }

  const refresh = (token: string) => identity.call('identity.rpc.refresh-token', { token });
  const sessionExpired = { ok: false, error: { status: 401, response_code: ResponseCode.SESSION_EXPIRED, message: expect.any(String) } };
  /** Waits until this many statements wait, directly or behind one that does, for the transaction of backend `pid`. */
  const blockedBehind = (pid: number, count: number) =>
    expectEventually(async () => {
      const [{ blocked }] = await identity.query<{ blocked: number }>(
        `WITH direct AS (SELECT pid FROM pg_stat_activity WHERE $1::int = ANY (pg_blocking_pids(pid)))
         SELECT count(*)::int AS blocked FROM pg_stat_activity
         WHERE pid IN (SELECT pid FROM direct) OR pg_blocking_pids(pid) && ARRAY(SELECT pid FROM direct)`,
        [pid],
      );
      expect(blocked).toBeGreaterThanOrEqual(count);
    });
  /** Whether the gateways refuse the session's access tokens (its key in Redis), as they are told of every revocation. */
  const revokedAtGateways = async (token: string) => (await identity.redis.get(revokedSessionKey(identity.namespace, claimsOf(token).sid))) === '1';

  describe('registration', () => {
    it('creates a discoverable passkey bound to PUBLIC_URL’s host for a user who just logged in, and announces it', async () => {
      const owner = await newOwner();
      const creation = await identity.ok('identity.rpc.passkey-registration-options', owner);
      expect(creation).toMatchObject({
        rp: { id: 'owners.homing.test', name: 'Homing' },
        user: { id: Buffer.from(owner.userId.replace(/-/g, ''), 'hex').toString('base64url'), name: owner.email },
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
        attestation: 'none',
        excludeCredentials: [],
      });
      const authenticator = new SoftAuthenticator({ synced: true, aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4' });
      const added = waitForEvent(identity.nc, identity.namespace, 'identity.passkey.added.v1');
      const passkey = await identity.ok('identity.rpc.register-passkey', { ...owner, response: authenticator.register(creation, { origin: ORIGIN }) as PasskeyRegistrationResponse });
      expect(passkey).toEqual({ id: expect.any(String), name: null, provider: 'Google Password Manager', synced: true, created_at: expect.any(String), last_used_at: null });
      expect((await added).data).toEqual({ userId: owner.userId, passkeyId: passkey.id, provider: 'Google Password Manager' });
      const [row] = await identity.query('SELECT credential_id, device_type, backed_up, counter FROM passkeys WHERE id = $1', [passkey.id]);
      expect(row).toEqual({ credential_id: authenticator.credentialId, device_type: 'multiDevice', backed_up: true, counter: '0' });

      // A second ceremony excludes it, so the browser does not register the same authenticator twice.
      const again = await identity.ok('identity.rpc.passkey-registration-options', owner);
      expect(again.excludeCredentials).toEqual([{ id: authenticator.credentialId, type: 'public-key', transports: ['internal'] }]);
    });

    it('needs a log-in of the last 10 minutes: an older session is told to log in again', async () => {
      const owner = await newOwner();
      await identity.query(`UPDATE sessions SET created_at = now() - interval '11 minutes' WHERE id = $1`, [owner.sessionId]);
      expect(await identity.refused('identity.rpc.passkey-registration-options', owner)).toMatchObject({ status: 403, response_code: ResponseCode.RECENT_LOGIN_REQUIRED });
    });

    it('refuses an answer from another origin, to another session’s challenge, or to a challenge already used', async () => {
      const owner = await newOwner();
      const refusedWith = async (response: unknown, sessionId = owner.sessionId) =>
        identity.refused('identity.rpc.register-passkey', { userId: owner.userId, sessionId, response: response as PasskeyRegistrationResponse });

      const creation = await identity.ok('identity.rpc.passkey-registration-options', owner);
      expect(await refusedWith(new SoftAuthenticator().register(creation, { origin: 'https://homing.test.evil.example' }))).toMatchObject({ status: 422, validation: { response: 'invalid' } });

      const other = await identity.ok('identity.rpc.passkey-registration-options', owner);
      const { token } = await identity.ok('identity.rpc.login', { email: owner.email, password });
      expect(await refusedWith(new SoftAuthenticator().register(other, { origin: ORIGIN }), claimsOf(token).sid)).toMatchObject({ status: 422 });

      const used = await identity.ok('identity.rpc.passkey-registration-options', owner);
      const authenticator = new SoftAuthenticator();
      await identity.ok('identity.rpc.register-passkey', { ...owner, response: authenticator.register(used, { origin: ORIGIN }) as PasskeyRegistrationResponse });
      expect(await refusedWith(new SoftAuthenticator().register(used, { origin: ORIGIN }))).toMatchObject({ status: 422 });
      expect(await identity.query('SELECT count(*)::int AS count FROM passkeys WHERE user_id = $1', [owner.userId])).toEqual([{ count: 1 }]);
    });
  });

  describe('log-in', () => {
    it('opens a session like a password log-in, and records the counter and last use', async () => {
      const owner = await ownerWithPasskey({ synced: true });
      const options = await identity.ok('identity.rpc.passkey-login-options', {});
      expect(options).toMatchObject({ rpId: 'owners.homing.test', userVerification: 'preferred' });
      expect(options.allowCredentials ?? []).toEqual([]);
      const { token } = await identity.ok('identity.rpc.passkey-login', { response: assertion(owner.authenticator, options) });
      expect(verifyAccessToken(token, identity.keys.publicKey)).toMatchObject({ id: owner.userId, email: owner.email, is_admin: false });
      expect(claimsOf(token).sid).not.toBe(owner.sessionId);
      const [row] = await identity.query<{ counter: string; last_used_at: Date | null }>('SELECT counter, last_used_at FROM passkeys WHERE id = $1', [owner.passkey.id]);
      expect(row.counter).toBe('1');
      expect(row.last_used_at).toBeInstanceOf(Date);
    });

    it('registers, logs in with, lists and deletes a passkey whose counter is past 2^31 (WebAuthn counts in 32 unsigned bits)', async () => {
      const owner = await newOwner();
      const authenticator = new SoftAuthenticator();
      authenticator.counter = 3_000_000_000;
      const creation = await identity.ok('identity.rpc.passkey-registration-options', owner);
      const passkey = await identity.ok('identity.rpc.register-passkey', { ...owner, response: authenticator.register(creation, { origin: ORIGIN }) as PasskeyRegistrationResponse });
      expect(await identity.query('SELECT counter FROM passkeys WHERE id = $1', [passkey.id])).toEqual([{ counter: '3000000000' }]);

      const options = await identity.ok('identity.rpc.passkey-login-options', {});
      expect(claimsOf((await identity.ok('identity.rpc.passkey-login', { response: assertion(authenticator, options, { counter: 2 ** 32 - 1 }) })).token).id).toBe(owner.userId);
      expect(await identity.query('SELECT counter FROM passkeys WHERE id = $1', [passkey.id])).toEqual([{ counter: '4294967295' }]);
      // A counter past 2^31 that stands still is still refused, as any other.
      const again = await identity.ok('identity.rpc.passkey-login-options', {});
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(authenticator, again, { counter: 2 ** 32 - 1 }) })).toEqual(wrongPasswordAnswer);

      expect(await identity.ok('identity.rpc.list-passkeys', { userId: owner.userId })).toEqual({ passkeys: [expect.objectContaining({ id: passkey.id })] });
      expect(await identity.ok('identity.rpc.delete-passkey', { userId: owner.userId, passkeyId: passkey.id })).toEqual({});
    });

    it('answers a replayed challenge as a wrong password', async () => {
      const owner = await ownerWithPasskey();
      const options = await identity.ok('identity.rpc.passkey-login-options', {});
      const response = assertion(owner.authenticator, options);
      await identity.ok('identity.rpc.passkey-login', { response });
      // The same answer again, and a fresh signature over the used challenge: both refused.
      expect(await identity.refused('identity.rpc.passkey-login', { response })).toEqual(wrongPasswordAnswer);
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(owner.authenticator, options) })).toEqual(wrongPasswordAnswer);
    });

    it('answers an expired challenge as a wrong password', async () => {
      const owner = await ownerWithPasskey();
      const options = await identity.ok('identity.rpc.passkey-login-options', {});
      await identity.query(`UPDATE passkey_challenges SET expires_at = now() - interval '1 second' WHERE challenge = $1`, [options.challenge]);
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(owner.authenticator, options) })).toEqual(wrongPasswordAnswer);
      expect(await identity.query('SELECT challenge FROM passkey_challenges WHERE challenge = $1', [options.challenge])).toEqual([]);
    });

    it('answers an assertion made on another origin, or for another relying party, as a wrong password', async () => {
      const owner = await ownerWithPasskey();
      const phished = await identity.ok('identity.rpc.passkey-login-options', {});
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(owner.authenticator, phished, { origin: 'https://owners-homing.example' }) })).toEqual(wrongPasswordAnswer);
      const otherParty = await identity.ok('identity.rpc.passkey-login-options', {});
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(owner.authenticator, otherParty, { rpId: 'homing.example' }) })).toEqual(wrongPasswordAnswer);
    });

    it('answers a counter that goes backwards, or stands still, as a wrong password', async () => {
      const owner = await ownerWithPasskey();
      await identity.ok('identity.rpc.passkey-login', { response: assertion(owner.authenticator, await identity.ok('identity.rpc.passkey-login-options', {}), { counter: 5 }) });
      for (const counter of [3, 5]) {
        const options = await identity.ok('identity.rpc.passkey-login-options', {});
        expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(owner.authenticator, options, { counter }) })).toEqual(wrongPasswordAnswer);
      }
      expect(await identity.query('SELECT counter FROM passkeys WHERE id = $1', [owner.passkey.id])).toEqual([{ counter: '5' }]);
      await identity.ok('identity.rpc.passkey-login', { response: assertion(owner.authenticator, await identity.ok('identity.rpc.passkey-login-options', {}), { counter: 6 }) });
    });

    it('answers an unknown credential id as a wrong password', async () => {
      const never = new SoftAuthenticator();
      const options = await identity.ok('identity.rpc.passkey-login-options', {});
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(never, options, { userHandle: strangerUserHandle() }) })).toEqual(wrongPasswordAnswer);
    });

    it('answers another user’s handle, a changed backup eligibility, and a bad signature as a wrong password', async () => {
      const owner = await ownerWithPasskey();
      const other = await newOwner();
      const otherHandle = Buffer.from(other.userId.replace(/-/g, ''), 'hex').toString('base64url');
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(owner.authenticator, await identity.ok('identity.rpc.passkey-login-options', {}), { userHandle: otherHandle }) })).toEqual(
        wrongPasswordAnswer,
      );
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(owner.authenticator, await identity.ok('identity.rpc.passkey-login-options', {}), { synced: true }) })).toEqual(wrongPasswordAnswer);
      const forged = assertion(owner.authenticator, await identity.ok('identity.rpc.passkey-login-options', {}));
      forged.response.signature = Buffer.from('not a signature').toString('base64url');
      expect(await identity.refused('identity.rpc.passkey-login', { response: forged })).toEqual(wrongPasswordAnswer);
    });
  });

  describe('managing passkeys', () => {
    it('lists, renames and deletes the user’s own only; a deleted passkey logs in no more', async () => {
      const owner = await ownerWithPasskey();
      const stranger = await newOwner();
      expect(await identity.ok('identity.rpc.list-passkeys', { userId: owner.userId })).toEqual({ passkeys: [owner.passkey] });
      expect(await identity.ok('identity.rpc.list-passkeys', { userId: stranger.userId })).toEqual({ passkeys: [] });

      expect(await identity.refused('identity.rpc.rename-passkey', { userId: stranger.userId, passkeyId: owner.passkey.id, name: 'Mine now' })).toMatchObject({ status: 404 });
      expect(await identity.refused('identity.rpc.delete-passkey', { userId: stranger.userId, passkeyId: owner.passkey.id })).toMatchObject({ status: 404 });
      expect(await identity.ok('identity.rpc.rename-passkey', { userId: owner.userId, passkeyId: owner.passkey.id, name: '  Work laptop ' })).toMatchObject({ id: owner.passkey.id, name: 'Work laptop' });

      const deleted = waitForEvent(identity.nc, identity.namespace, 'identity.passkey.deleted.v1');
      expect(await identity.ok('identity.rpc.delete-passkey', { userId: owner.userId, passkeyId: owner.passkey.id })).toEqual({});
      expect((await deleted).data).toEqual({ userId: owner.userId, passkeyId: owner.passkey.id, provider: null });
      const options = await identity.ok('identity.rpc.passkey-login-options', {});
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(owner.authenticator, options) })).toEqual(wrongPasswordAnswer);
    });

    it('ends every session opened with a deleted passkey, refreshed ones too, at the gateways at once; other sessions live on', async () => {
      // The owner's phone holds one passkey, their laptop another; the phone is lost, and deleted from the laptop.
      const owner = await ownerWithPasskey();
      const laptop = new SoftAuthenticator();
      const creation = await identity.ok('identity.rpc.passkey-registration-options', owner);
      await identity.ok('identity.rpc.register-passkey', { ...owner, response: laptop.register(creation, { origin: ORIGIN }) as PasskeyRegistrationResponse });

      const onPhone = await logInWith(owner.authenticator);
      const { token: onPhoneRefreshed } = await identity.ok('identity.rpc.refresh-token', { token: onPhone });
      expect(claimsOf(onPhoneRefreshed).sid).toBe(claimsOf(onPhone).sid);
      const { token: onPhoneLatest } = await identity.ok('identity.rpc.refresh-token', { token: onPhoneRefreshed });
      const onPhoneAgain = await logInWith(owner.authenticator);
      const onLaptop = await logInWith(laptop);
      const withPassword = (await identity.ok('identity.rpc.login', { email: owner.email, password })).token;

      expect(await identity.ok('identity.rpc.delete-passkey', { userId: owner.userId, passkeyId: owner.passkey.id })).toEqual({});

      for (const token of [onPhoneLatest, onPhoneAgain]) {
        expect(await revokedAtGateways(token)).toBe(true);
        expect(await refresh(token)).toEqual(sessionExpired);
      }
      // A token rotated away within the grace gets no token for the revoked session either.
      expect(await refresh(onPhoneRefreshed)).toEqual(sessionExpired);
      for (const token of [onLaptop, withPassword]) {
        expect(await revokedAtGateways(token)).toBe(false);
        expect((await refresh(token)).ok).toBe(true);
      }
      expect(await identity.query('SELECT revoked_at FROM sessions WHERE id = $1', [owner.sessionId])).toEqual([{ revoked_at: null }]);
    });

    it('ends the session the deletion is asked from when that passkey opened it: the credential removed logs in nowhere', async () => {
      const owner = await ownerWithPasskey();
      const onPhone = await logInWith(owner.authenticator);
      // The gateway calls with the user of the session asking: from the phone's own session.
      expect(await identity.ok('identity.rpc.delete-passkey', { userId: claimsOf(onPhone).id, passkeyId: owner.passkey.id })).toEqual({});
      expect(await revokedAtGateways(onPhone)).toBe(true);
      expect(await refresh(onPhone)).toEqual(sessionExpired);
      expect(await identity.query('SELECT revoked_at FROM sessions WHERE id = $1', [owner.sessionId])).toEqual([{ revoked_at: null }]);
    });

    it('ends the session of a passkey log-in that was in flight when the passkey was deleted', async () => {
      const owner = await ownerWithPasskey();
      // The log-in has recorded the passkey's use and is adding its session, held there by a lock this test keeps; the
      // deletion comes meanwhile, and the log-in commits before it ends.
      const key = randomInt(1, 2 ** 31);
      await identity.query(`CREATE FUNCTION test_hold_session_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_advisory_xact_lock_shared(${key}); RETURN NEW; END $$`);
      await identity.query('CREATE TRIGGER test_hold_session_inserts BEFORE INSERT ON sessions FOR EACH ROW EXECUTE FUNCTION test_hold_session_inserts()');
      const holder = new Client({ connectionString: identity.infra.databaseUrl });
      await holder.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [key]);
        const [{ pid }] = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
        const options = await identity.ok('identity.rpc.passkey-login-options', {});
        const login = identity.ok('identity.rpc.passkey-login', { response: assertion(owner.authenticator, options) });
        await blockedBehind(pid, 1);
        const deletion = identity.ok('identity.rpc.delete-passkey', { userId: owner.userId, passkeyId: owner.passkey.id });
        await blockedBehind(pid, 2);
        await holder.query('SELECT pg_advisory_unlock($1)', [key]);
        const [{ token }] = await Promise.all([login, deletion]);
        expect(await revokedAtGateways(token)).toBe(true);
        expect(await refresh(token)).toEqual(sessionExpired);
        expect(await identity.query('SELECT id FROM sessions WHERE user_id = $1 AND revoked_at IS NULL', [owner.userId])).toEqual([{ id: owner.sessionId }]);
      } finally {
        await holder.end();
        await identity.query('DROP TRIGGER test_hold_session_inserts ON sessions');
        await identity.query('DROP FUNCTION test_hold_session_inserts()');
      }
    });

    it('erases an account by login code while one of its passkeys is being deleted: both finish, one after the other', async () => {
      const owner = await ownerWithPasskey();
      const withPasskey = await logInWith(owner.authenticator);
      const requested = waitForEvent(identity.nc, identity.namespace, 'identity.login-code.requested.v1', (event) => event.data.userId === owner.userId);
      await identity.ok('identity.rpc.request-login-code', { email: owner.email });
      const { code } = (await requested).data;
      // The deletion waits for the passkey's row (held here, as a log-in with it would) while the erasure comes.
      const holder = new Client({ connectionString: identity.infra.databaseUrl, options: `-c search_path=${identity.schema}` });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM passkeys WHERE id = $1 FOR UPDATE', [owner.passkey.id]);
        const [{ pid }] = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
        const deletion = identity.call('identity.rpc.delete-passkey', { userId: owner.userId, passkeyId: owner.passkey.id });
        await blockedBehind(pid, 1);
        const erasure = identity.call('identity.rpc.delete-user', { userId: owner.userId, code });
        await blockedBehind(pid, 2);
        await holder.query('COMMIT');
        expect(await Promise.all([deletion, erasure])).toEqual([
          { ok: true, body: {} },
          { ok: true, body: { email: owner.email } },
        ]);
      } finally {
        await holder.end();
      }
      expect(await revokedAtGateways(withPasskey)).toBe(true);
      expect(await identity.query('SELECT id FROM users WHERE id = $1', [owner.userId])).toEqual([]);
    });

    it('deletes the passkeys added before a password set with an e-mailed link, and announces each (pre-hijack)', async () => {
      // Someone claims a tag with an address that is not theirs: activation hands them a session of its new account,
      // a "recent log-in", from which they add a passkey.
      const email = `victim-${randomUUID().slice(0, 8)}@example.com`;
      const created = await identity.ok('identity.rpc.ensure-user', { email, language: 'en' });
      const claimer = { userId: created.userId, sessionId: claimsOf(created.loginToken as string).sid };
      const authenticator = new SoftAuthenticator();
      const creation = await identity.ok('identity.rpc.passkey-registration-options', claimer);
      const passkey = await identity.ok('identity.rpc.register-passkey', { ...claimer, response: authenticator.register(creation, { origin: ORIGIN }) as PasskeyRegistrationResponse });
      // A registration begun from that session is not finished after the owner takes the account back.
      const pending = await identity.ok('identity.rpc.passkey-registration-options', claimer);
      const withPasskey = await logInWith(authenticator);

      // The address's owner takes the account back with a reset link.
      const published = waitForEvent(identity.nc, identity.namespace, 'identity.password-reset.requested.v1', (event) => event.data.userId === created.userId);
      await identity.ok('identity.rpc.request-password-reset', { email });
      const { data } = await published;
      const deleted = waitForEvent(identity.nc, identity.namespace, 'identity.passkey.deleted.v1', (event) => event.data.userId === created.userId);
      const { token } = await identity.ok('identity.rpc.set-password', { token: data.token, password });
      expect((await deleted).data).toEqual({ userId: created.userId, passkeyId: passkey.id, provider: null });
      expect(await identity.query('SELECT id FROM passkeys WHERE user_id = $1', [created.userId])).toEqual([]);
      expect(await revokedAtGateways(withPasskey)).toBe(true);
      expect(await refresh(withPasskey)).toEqual(sessionExpired);

      const options = await identity.ok('identity.rpc.passkey-login-options', {});
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(authenticator, options) })).toEqual(wrongPasswordAnswer);
      const late = new SoftAuthenticator();
      expect(await identity.refused('identity.rpc.register-passkey', { ...claimer, response: late.register(pending, { origin: ORIGIN }) as PasskeyRegistrationResponse })).toMatchObject({ status: 422 });
      // The owner's own session may add one again.
      const owner = { userId: created.userId, sessionId: claimsOf(token).sid };
      const fresh = await identity.ok('identity.rpc.passkey-registration-options', owner);
      await identity.ok('identity.rpc.register-passkey', { ...owner, response: late.register(fresh, { origin: ORIGIN }) as PasskeyRegistrationResponse });
    });

    it('erases the passkeys and open challenges with the account, and exports names and times only', async () => {
      const owner = await ownerWithPasskey({ aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd' });
      await identity.ok('identity.rpc.passkey-registration-options', owner);
      // A session the passkey opened, refreshed: it names the passkey, which must keep neither the export nor the
      // erasure from working.
      const { token: withPasskey } = await identity.ok('identity.rpc.refresh-token', { token: await logInWith(owner.authenticator) });
      const exported = await identity.ok('identity.rpc.export-user', { userId: owner.userId });
      expect(exported.passkeys).toEqual([{ name: null, provider: 'iCloud Keychain', synced: false, createdAt: expect.any(String), lastUsedAt: expect.any(String) }]);
      expect(exported.sessions).toHaveLength(2);
      // The session says which passkey opened it, as the passkeys section names it (not by its id).
      expect(exported.sessions.map((session) => session.passkey)).toEqual(expect.arrayContaining([null, { name: null, provider: 'iCloud Keychain' }]));
      expect(JSON.stringify(exported)).not.toContain(owner.authenticator.credentialId);
      expect(JSON.stringify(exported)).not.toContain(owner.passkey.id);

      await identity.ok('identity.rpc.delete-user', { userId: owner.userId, password });
      expect(await revokedAtGateways(withPasskey)).toBe(true);
      expect(await identity.query('SELECT id FROM sessions WHERE user_id = $1', [owner.userId])).toEqual([]);
      expect(await identity.query('SELECT id FROM passkeys WHERE user_id = $1', [owner.userId])).toEqual([]);
      expect(await identity.query('SELECT challenge FROM passkey_challenges WHERE user_id = $1', [owner.userId])).toEqual([]);
      const options = await identity.ok('identity.rpc.passkey-login-options', {});
      expect(await identity.refused('identity.rpc.passkey-login', { response: assertion(owner.authenticator, options) })).toEqual(wrongPasswordAnswer);
    });
  });
});
