import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import IORedis from 'ioredis';
import type { CreateMessageResponse, DomainEvent, FinderTokenResponse, HttpErrorBody, PublicItem } from '@homing/contracts';
import { expectEventually, testInfra, waitForEvent } from '@homing/testing';
import { apiExchange, ownerOfStack, type ApiCaller } from '../support/api';
import { BACKEND_SERVICES, startStack, type Stack } from '../support/stack';

// `DELETE /user` through the gateway, every service a process: what stops working at once, and that the person is
// gone from every schema, from Redis and from the events stream once the services have caught up, even one that was
// down when the account went.
describe('erasing an account', () => {
  let stack: Stack;
  let redis: IORedis;

  beforeAll(async () => {
    // The second pass of each service's erasure seconds after it, not minutes (ErasureSecondPass): long enough for the
    // test below to land its late writes between the passes on a slow machine.
    const secondPass = { ERASURE_SECOND_PASS_SECONDS: '10' };
    stack = await startStack({ env: { items: secondPass, messaging: secondPass, notifications: secondPass } });
    redis = new IORedis(testInfra().redisUrl);
  });

  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
  });

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiExchange<T>(stack, method, path, options);
  const erase = (token: string | undefined, body: unknown) => call<HttpErrorBody>('DELETE', '/user', { token, body });

  /** An owner as activation makes one; with `password`, one who then chose a password. */
  const newOwner = (options: { password?: boolean } = {}) => ownerOfStack(stack, { language: 'es', ...options });

  async function newItem(token: string, name: string): Promise<string> {
    const created = await call<PublicItem>('POST', '/items', { token, body: { name }, idempotencyKey: randomUUID() });
    expect(created.status).toBe(201);
    await expectEventually(async () => expect((await call('GET', `/user/items/${created.body.code}/unread-count`, { token })).status).toBe(200));
    return created.body.code;
  }

  /** An owner with two items, a finder who left an address on one, the owner's reply, a push subscription and a code. */
  async function ownerWithHistory(options: { password?: boolean } = {}) {
    const owner = await newOwner(options);
    const keys = await newItem(owner.token, 'Keys');
    const bag = await newItem(owner.token, 'Bag');
    const finderEmail = `finder-${randomUUID()}@example.test`;
    const finderToken = (await call<FinderTokenResponse>('POST', `/items/${keys}/set-finder`, { body: { email: finderEmail } })).body.finder_token;
    expect((await call<CreateMessageResponse>('POST', `/items/${keys}/messages`, { finderToken, body: { content: 'Found your keys at the market' } })).status).toBe(201);
    expect((await call('POST', `/items/${keys}/messages`, { token: owner.token, body: { content: `Thanks! Write to ${owner.email}` } })).status).toBe(201);
    expect((await call('POST', '/user/push/register', { token: owner.token, body: stack.push.subscribe() })).status).toBe(204);
    await stack.mail.waitForMails(finderEmail, 1);
    return { ...owner, keys, bag, finderEmail, finderToken };
  }

  /** A login code mailed to the owner (the event carries it; the e-mail too). */
  async function loginCodeOf(owner: { email: string; userId: string }): Promise<string> {
    const requested = waitForEvent(stack.nc, stack.namespace, 'identity.login-code.requested.v1', (event) => event.data.userId === owner.userId);
    expect((await call('GET', `/magic-link?email=${encodeURIComponent(owner.email)}`)).status).toBe(200);
    return (await requested).data.code;
  }

  /** Every row of the stack's schemas whose text holds `needle`, as `schema.table`. */
  async function rowsHolding(needle: string): Promise<string[]> {
    const schemas = BACKEND_SERVICES.map((service) => stack.schemaOf(service));
    const { rows: tables } = await stack.db.query<{ schema: string; table: string }>(
      "SELECT table_schema AS schema, table_name AS table FROM information_schema.tables WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE'",
      [schemas],
    );
    const found: string[] = [];
    for (const { schema, table } of tables) {
      const where = table === 'outbox' ? 'AND t.published_at IS NULL' : '';
      const { rows } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}"."${table}" t WHERE t::text ILIKE $1 ${where}`, [`%${needle}%`]);
      if (rows[0].n > 0) found.push(`${schema.replace(`_${stack.namespace}`, '')}.${table}`);
    }
    return found;
  }

  /** Every Redis key of the stack (its namespace, its BullMQ prefix) whose name or value holds `needle`. */
  async function redisKeysHolding(needle: string): Promise<string[]> {
    const found: string[] = [];
    for await (const batch of redis.scanStream({ match: `*${stack.namespace}*`, count: 500 })) {
      for (const key of batch as string[]) {
        const type = await redis.type(key);
        const value =
          type === 'string' ? await redis.get(key) : type === 'hash' ? JSON.stringify(await redis.hgetall(key)) : type === 'list' ? JSON.stringify(await redis.lrange(key, 0, -1)) : type === 'zset' ? JSON.stringify(await redis.zrange(key, 0, -1)) : type === 'set' ? JSON.stringify(await redis.smembers(key)) : '';
        if (`${key} ${value ?? ''}`.toLowerCase().includes(needle.toLowerCase())) found.push(key);
      }
    }
    return found;
  }

  /** Every event of the stack's events stream whose stored message holds `needle`, by subject. */
  async function eventsHolding(needle: string): Promise<string[]> {
    const jsm = await jetstreamManager(stack.nc);
    const stream = `${stack.namespace.toUpperCase()}_HOMING_EVENTS`;
    const { state } = await jsm.streams.info(stream);
    const found: string[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq += 1) {
      const message = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (message && message.string().toLowerCase().includes(needle.toLowerCase())) found.push(message.subject);
    }
    return found;
  }

  /** Rows tying the user's id to anything: every table but the append-only ones that expire on their own. */
  async function rowsTyingUserId(userId: string): Promise<string[]> {
    return (await rowsHolding(userId)).filter((table) => !table.endsWith('.processed_events'));
  }

  async function expectGoneEverywhere(owner: { email: string; userId: string; keys: string; bag: string; finderEmail: string }) {
    await expectEventually(
      async () => {
        expect(await rowsHolding(owner.email)).toEqual([]);
        expect(await rowsTyingUserId(owner.userId)).toEqual([]);
        // The finder of the owner's item goes with the conversation, and the owner's item names with the items.
        expect(await rowsHolding(owner.finderEmail)).toEqual([]);
        expect(await redisKeysHolding(owner.email)).toEqual([]);
        expect(await eventsHolding(owner.email)).toEqual([]);
      },
      { timeoutMs: 30_000 },
    );
    // Nothing is left of the items' conversations or photos, and the codes are tombstones holding the code alone.
    const codes = [owner.keys, owner.bag].map((code) => code.replace(/-/g, ''));
    const { rows } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${stack.schemaOf('messaging')}".conversations WHERE item_code = ANY($1)`, [codes]);
    expect(rows[0].n).toBe(0);
    const retired = await stack.db.query<{ code: string }>(`SELECT code FROM "${stack.schemaOf('items')}".retired_tags WHERE code = ANY($1) ORDER BY code`, [codes]);
    expect(retired.rows.map((row) => row.code)).toEqual([...codes].sort());
  }

  /** What a tag code that never existed answers, to compare a retired one with. */
  async function unknownCodeAnswers() {
    const unknown = 'ZZZZ-ZZZZ-ZZZZ-ZZZ0';
    return { scan: await call('GET', `/items/${unknown}`), claim: await call('POST', '/claim', { body: { code: unknown, email: `new-${randomUUID()}@example.test` } }) };
  }

  it('with the password: every token stops at once, the tags answer as unknown, and the person is gone everywhere', async () => {
    const owner = await ownerWithHistory();
    await loginCodeOf(owner);
    // The welcome, the finder's message and the code: all sent before the account goes.
    await stack.mail.waitForMails(owner.email, 3);
    const deleted = waitForEvent(stack.nc, stack.namespace, 'identity.user.deleted.v1', (event: DomainEvent<'identity.user.deleted.v1'>) => event.data.userId === owner.userId);

    // The sweeps see the person where they are kept before the erasure (so their empty answers after it mean something).
    expect(await rowsHolding(owner.email)).toEqual(expect.arrayContaining(['identity.users', 'messaging.messages']));
    expect(await rowsTyingUserId(owner.userId)).toEqual(expect.arrayContaining(['identity.users', 'identity.sessions', 'items.items', 'items.idempotency_keys', 'messaging.item_owners', 'notifications.push_subscriptions', 'notifications.deliveries']));
    expect(await rowsHolding(owner.finderEmail)).toEqual(['messaging.conversations']);

    // A wrong password changes nothing.
    const wrong = await erase(owner.token, { password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ response_code: 'INVALID_CREDENTIALS', message: expect.any(String) });
    expect((await call('GET', '/user/me', { token: owner.token })).status).toBe(200);

    const answer = await erase(owner.token, { password: owner.password });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ response_code: 'USER_DELETED' });
    expect((await deleted).data).toEqual({ userId: owner.userId });

    // At once: the token, its refresh and the password are refused.
    expect((await call('GET', '/user/me', { token: owner.token })).status).toBe(401);
    expect((await call('GET', '/user/items', { token: owner.token })).status).toBe(401);
    expect((await call('POST', '/auth/refresh-token', { token: owner.token })).status).toBe(401);
    const login = await call<HttpErrorBody>('POST', '/user/login', { body: { email: owner.email, password: owner.password } });
    expect(login.status).toBe(401);
    expect(login.body.response_code).toBe('INVALID_CREDENTIALS');
    expect((await erase(owner.token, { password: owner.password })).status).toBe(401);

    // The tags answer exactly like codes that never existed, and cannot be activated again.
    const unknown = await unknownCodeAnswers();
    await expectEventually(async () => {
      for (const code of [owner.keys, owner.bag]) {
        const scan = await call('GET', `/items/${code}`);
        expect({ status: scan.status, body: scan.body }).toEqual({ status: unknown.scan.status, body: unknown.scan.body });
        const claim = await call('POST', '/claim', { body: { code, email: `new-${randomUUID()}@example.test` } });
        expect({ status: claim.status, body: claim.body }).toEqual({ status: unknown.claim.status, body: unknown.claim.body });
      }
    });

    // The finder's conversation is gone with the item: their token no longer reads anything.
    expect((await call('GET', `/items/${owner.keys}/messages`, { finderToken: owner.finderToken })).status).toBe(404);

    // A last e-mail confirms it, in the owner's language (Spanish), and only one.
    await expectEventually(() => expect(stack.mail.mailsTo(owner.email).filter((mail) => /eliminado/.test(mail.subject))).toHaveLength(1));
    const farewell = stack.mail.mailsTo(owner.email).find((mail) => /eliminado/.test(mail.subject));
    expect(farewell?.subject).toBe('Tu cuenta de Homing se ha eliminado');

    await expectGoneEverywhere(owner);
    // Nothing of it in any service log.
    for (const [name, service] of stack.services) expect(`${name}: ${service.logs.includes(owner.email)}`).toBe(`${name}: false`);
  });

  it('with a login code for an owner without a password; a wrong or someone else’s code changes nothing', async () => {
    const owner = await ownerWithHistory({ password: false });
    const other = await newOwner();
    const othersCode = await loginCodeOf(other);
    expect((await erase(owner.token, { code: othersCode })).status).toBe(401);
    expect((await erase(owner.token, { code: 'ZZZZZZZZ' })).status).toBe(401);
    expect((await call('GET', '/user/me', { token: owner.token })).status).toBe(200);

    const code = await loginCodeOf(owner);
    const answer = await erase(owner.token, { code });
    expect(answer).toMatchObject({ status: 200, body: { response_code: 'USER_DELETED' } });
    expect((await call('GET', '/user/me', { token: owner.token })).status).toBe(401);
    await expectGoneEverywhere(owner);
    // The other owner's code still logs them in: their account is untouched.
    expect((await call('POST', '/magic-link/login', { body: { code: othersCode } })).status).toBe(200);
  });

  it('finishes the erasure when messaging was down at the time and starts afterwards', async () => {
    const owner = await ownerWithHistory();
    const messaging = stack.services.get('messaging');
    await messaging?.stop();
    try {
      const answer = await erase(owner.token, { password: owner.password });
      expect(answer.status).toBe(200);
      expect((await call('POST', '/user/login', { body: { email: owner.email, password: owner.password } })).status).toBe(401);
      // Messaging still holds the finder's conversation while it is down.
      const { rows } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${stack.schemaOf('messaging')}".conversations WHERE item_code = $1`, [owner.keys.replace(/-/g, '')]);
      expect(rows[0].n).toBe(1);
    } finally {
      await messaging?.start();
    }
    await expectGoneEverywhere(owner);
  });

  it('erases again, seconds later, what a request let through just before the erasure wrote after it', async () => {
    const owner = await newOwner();
    const erased = waitForEvent(stack.nc, stack.namespace, 'identity.user.deleted.v1', (event) => event.data.userId === owner.userId);
    expect((await erase(owner.token, { password: owner.password })).status).toBe(200);
    const { id: eventId } = await erased;
    // Every service's first pass is done before the late writes land, as when such a request reaches its service late.
    const firstPasses = { items: 'items__user-erasure', messaging: 'messaging__user-erasure', notifications: 'notifications__user-deleted' } as const;
    const passes = Object.entries(firstPasses) as Array<[keyof typeof firstPasses, string]>;
    const handled = async (service: keyof typeof firstPasses, consumer: string) =>
      (await stack.db.query(`SELECT 1 FROM "${stack.schemaOf(service)}".processed_events WHERE consumer = $1 AND event_id = $2`, [consumer, eventId])).rows.length > 0;
    for (const [service, consumer] of passes) await expectEventually(async () => expect(await handled(service, consumer)).toBe(true));
    // What the gateway would have sent for an owner claiming an item and registering a push subscription in another tab.
    const late = async (subject: string, request: unknown) => {
      const reply = await stack.nc.request(`${stack.namespace}.${subject}`, JSON.stringify(request), { timeout: 5000 });
      return reply.json<{ code?: string; status?: number }>();
    };
    const item = await late('items.rpc.create', { name: 'Late keys', ownerUserId: owner.userId });
    expect(item.code).toBeDefined();
    expect(await late('notifications.rpc.register-push', { subscriber: { userId: owner.userId }, subscription: stack.push.subscribe() })).not.toHaveProperty('status');
    await expectEventually(async () => expect(await rowsTyingUserId(owner.userId)).toEqual(expect.arrayContaining(['items.items', 'notifications.push_subscriptions'])));
    // Still before any second pass: what follows is their work, not the first passes'.
    for (const [service, consumer] of passes) expect(await handled(service, `${consumer}-second-pass`)).toBe(false);

    // The second passes find both, and the item goes as an erased owner's items go: retired, everywhere.
    await expectEventually(async () => expect(await rowsTyingUserId(owner.userId)).toEqual([]), { timeoutMs: 30_000 });
    const code = item.code!.replace(/-/g, '');
    const retired = await stack.db.query(`SELECT 1 FROM "${stack.schemaOf('items')}".retired_tags WHERE code = $1`, [code]);
    expect(retired.rows).toHaveLength(1);
    expect(await call('GET', `/items/${item.code}`)).toMatchObject({ status: 404 });
  });

  it('leaves no invitation or reply address naming the erased person on items that stay: one they were invited to share, one they passed on', async () => {
    /** Invites the address to the item (`co-owners` or `transfer`) and accepts with the link from its e-mail. */
    const invitedAndAccepted = async (code: string, inviterToken: string, kind: 'co-owners' | 'transfer', email: string, accepterToken: string) => {
      expect((await call('POST', `/user/items/${code}/${kind}`, { token: inviterToken, body: { email } })).status).toBe(201);
      const token = await expectEventually(() => {
        const link = stack.mail
          .mailsTo(email)
          .map((mail) => /\/invite\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1])
          .find(Boolean);
        expect(link).toBeDefined();
        return link!;
      });
      expect((await call('POST', `/invitations/${token}/accept`, { token: accepterToken })).status).toBe(200);
    };
    const sharer = await newOwner();
    const shared = await newItem(sharer.token, 'Shared bike');
    const person = await newOwner();
    const givenAway = await newItem(person.token, 'Old bike');
    const taker = await newOwner();
    await invitedAndAccepted(shared, sharer.token, 'co-owners', person.email, person.token);
    await invitedAndAccepted(givenAway, person.token, 'transfer', taker.email, taker.token);
    const { rows } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${stack.schemaOf('items')}".item_invitations WHERE invited_by = $1 OR accepted_by = $1`, [person.userId]);
    expect(rows[0].n).toBe(2);
    // A finder writes about the shared item: the co-owner's e-mail carries a reply address of theirs.
    expect((await call('POST', `/items/${shared}/messages`, { body: { content: 'Found your bike by the station' } })).status).toBe(201);
    await expectEventually(async () => {
      const minted = await stack.db.query(`SELECT 1 FROM "${stack.schemaOf('messaging')}".reply_addresses WHERE user_id = $1`, [person.userId]);
      expect(minted.rows).toHaveLength(1);
    });

    expect((await erase(person.token, { password: person.password })).status).toBe(200);
    await expectEventually(
      async () => {
        expect(await rowsTyingUserId(person.userId)).toEqual([]);
        expect(await rowsHolding(person.email)).toEqual([]);
      },
      { timeoutMs: 30_000 },
    );
    // Both items stay their owners'.
    expect((await call('GET', `/items/${shared}`)).status).toBe(200);
    expect((await call('GET', `/items/${givenAway}`)).status).toBe(200);
  });

  it('refuses a body that is not one proof, and a caller without a token', async () => {
    const owner = await newOwner();
    expect(await erase(owner.token, {})).toMatchObject({ status: 422, body: { response_code: 'VALIDATION_ERROR', validation: { password: 'required' } } });
    expect(await erase(owner.token, { password: owner.password, code: 'ABCDEFGH' })).toMatchObject({ status: 422, body: { validation: { code: 'invalid' } } });
    expect(await erase(owner.token, { password: owner.password, extra: 1 })).toMatchObject({ status: 400 });
    expect((await erase(undefined, { password: owner.password })).status).toBe(401);
    expect((await call('GET', '/user/me', { token: owner.token })).status).toBe(200);
  });
});
