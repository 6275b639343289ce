import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import IORedis from 'ioredis';
import { parseTagCode, type CreateMessageResponse, type DomainEvent, type FinderTokenResponse, type HttpErrorBody, type Message, type PublicItem } from '@homing/contracts';
import { clientNetworkOf, messageLimitKeys } from '@homing/platform';
import { expectEventually, runServiceCommand, waitForEvent } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { startStack, type Stack } from '../support/stack';

interface Call {
  token?: string;
  finderToken?: string;
  body?: unknown;
  idempotencyKey?: string;
  /** The client address a trusted proxy reports. */
  forwardedFor?: string;
}

// Finders' conversations with owners, through the gateway, with the whole stack: items tells messaging who owns what.
describe('finders writing to owners', () => {
  let stack: Stack;
  let unactivated: string;

  beforeAll(async () => {
    stack = await startStack({
      // The gateway believes X-Forwarded-For from the test (as from a load balancer): writers from many addresses.
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } },
      beforeStart: async ({ envOf }) => {
        [unactivated] = (await runServiceCommand('items', ['seed-tags', '--count', '1'], envOf('items'))).trim().split('\n');
      },
    });
  });

  afterAll(() => stack?.stop());

  async function call<T>(method: string, path: string, options: Call = {}): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = {};
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.finderToken) headers['x-finder-token'] = options.finderToken;
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (options.forwardedFor) headers['x-forwarded-for'] = options.forwardedFor;
    const response = await fetch(`${stack.api}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  const write = (code: string, content: string, options: Call = {}) => call<CreateMessageResponse & HttpErrorBody>('POST', `/items/${code}/messages`, { ...options, body: { content, ...(options.body as object) } });
  const read = (code: string, options: Call & { after?: number } = {}) => call<Message[] & HttpErrorBody>('GET', `/items/${code}/messages${options.after === undefined ? '' : `?after=${options.after}`}`, options);
  const unread = (code: string, token: string) => call<number>('GET', `/user/items/${code}/unread-count`, { token });

  /** An item of a new owner, once messaging has learnt who owns it. */
  async function ownedItem(): Promise<{ code: string; owner: string; ownerId: string }> {
    const { token, userId } = testAccessToken();
    const created = await call<PublicItem>('POST', '/items', { token, body: { name: 'Keys' } });
    expect(created.status).toBe(201);
    await expectEventually(async () => expect((await unread(created.body.code, token)).status).toBe(200));
    return { code: created.body.code, owner: token, ownerId: userId };
  }

  it('opens a conversation for a finder’s first message and gives them a token to keep writing and reading', async () => {
    const { code, owner, ownerId } = await ownedItem();
    const published = waitForEvent(stack.nc, stack.namespace, 'messaging.message.created.v1', (event) => event.data.itemCode === code.replace(/-/g, ''));
    const first = await write(code, '  I found your keys\nat the station  ');
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      message: { id: expect.any(Number), conversation_id: expect.any(String), author: 'finder', content: 'I found your keys\nat the station', created_at: expect.any(String), is_read: false, delivered_at: null, read_at: null, version: expect.any(Number) },
      finder_token: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    const event = await published;
    expect(event).toMatchObject({
      aggregateId: code.replace(/-/g, ''),
      version: first.body.message.id,
      data: { conversationId: first.body.message.conversation_id, messageId: first.body.message.id, author: 'finder', ownerUserId: ownerId },
    });
    expect(JSON.stringify(event)).not.toContain('station');

    const finderToken = first.body.finder_token;
    const second = await write(code, 'Call me', { finderToken });
    expect(second.body).toEqual({ message: expect.objectContaining({ conversation_id: first.body.message.conversation_id }) });
    expect((await read(code, { finderToken })).body.map((message) => message.content)).toEqual(['I found your keys\nat the station', 'Call me']);
    expect((await read(code, { finderToken, after: first.body.message.id })).body.map((message) => message.content)).toEqual(['Call me']);
    // Without an address, replies cannot reach this finder; the token is stored only as a hash.
    expect((await call('GET', `/items/${code}/finder-details`, { token: owner })).body).toEqual({ finder_known: false });
    const { rows } = await stack.db.query(`SELECT finder_token_hash FROM "${stack.schemaOf('messaging')}".conversations WHERE id = $1`, [first.body.message.conversation_id]);
    expect(rows[0].finder_token_hash).not.toBe(finderToken);
  });

  it('keeps the address a finder leaves before their first message, for notifications only', async () => {
    const { code, owner } = await ownedItem();
    const email = `finder-${randomUUID()}@example.test`;
    const setFinder = await call<FinderTokenResponse>('POST', `/items/${code}/set-finder`, { body: { email } });
    expect(setFinder.status).toBe(200);
    const finderToken = setFinder.body.finder_token;
    const first = await write(code, 'Found it', { finderToken });
    expect(first.status).toBe(201);
    expect(first.body).not.toHaveProperty('finder_token');

    const details = await call('GET', `/items/${code}/finder-details`, { token: owner });
    expect(details.body).toEqual({ finder_known: true });
    expect(JSON.stringify((await read(code, { token: owner })).body)).not.toContain(email);
    const reply = await stack.nc.request(`${stack.namespace}.messaging.rpc.get-finder-contact`, JSON.stringify({ conversationId: first.body.message.conversation_id }), { timeout: 5000 });
    expect(reply.json()).toEqual({ email, language: 'en' });

    // The finder changes their address with their token: still one conversation.
    const changed = await call<FinderTokenResponse>('POST', `/items/${code}/set-finder`, { finderToken, body: { email: `new-${email}` } });
    expect(changed.body).toEqual({ finder_token: finderToken });
    const again = await stack.nc.request(`${stack.namespace}.messaging.rpc.get-finder-contact`, JSON.stringify({ conversationId: first.body.message.conversation_id }), { timeout: 5000 });
    expect(again.json()).toEqual({ email: `new-${email}`, language: 'en' });
  });

  it('publishes one message event per message, and none carries the finder’s address', async () => {
    const { code, owner } = await ownedItem();
    const itemCode = code.replace(/-/g, '');
    const email = `finder-${randomUUID()}@example.test`;
    const finderToken = (await call<FinderTokenResponse>('POST', `/items/${code}/set-finder`, { body: { email } })).body.finder_token;
    const subject = 'messaging.message.created.v1';
    const seen: Array<DomainEvent<typeof subject>> = [];
    const subscription = stack.nc.subscribe(`${stack.namespace}.${subject}`, {
      callback: (_error, msg) => {
        const event = msg.json<DomainEvent<typeof subject>>();
        if (event.data.itemCode === itemCode) seen.push(event);
      },
    });
    await stack.nc.flush();
    const stored = async () => {
      const stream = `${stack.namespace.toUpperCase()}_HOMING_EVENTS`;
      const info = await (await jetstreamManager(stack.nc)).streams.info(stream, { subjects_filter: `${stack.namespace}.${subject}` });
      return info.state.subjects?.[`${stack.namespace}.${subject}`] ?? 0;
    };
    const storedBefore = await stored();

    const written: Message[] = [];
    for (const [n, caller] of [{ finderToken }, { token: owner }, { finderToken }, { token: owner }, { finderToken }].entries()) {
      const answer = await write(code, `Message ${n + 1} for ${email}`, caller);
      expect(answer.status).toBe(201);
      written.push(answer.body.message);
    }
    // Every message's event recorded and published (nothing left in messaging's outbox), each stored once.
    await expectEventually(async () => {
      const { rows } = await stack.db.query(`SELECT count(*)::int AS n FROM "${stack.schemaOf('messaging')}".outbox WHERE published_at IS NULL`);
      expect(rows[0].n).toBe(0);
      expect(await stored()).toBe(storedBefore + 5);
    });
    await expectEventually(() => expect(seen).toHaveLength(5));
    subscription.unsubscribe();
    const byMessage = [...seen].sort((a, b) => a.data.messageId - b.data.messageId);
    expect(byMessage.map((event) => [event.data.messageId, event.data.author])).toEqual(written.map((message) => [message.id, message.author]));
    for (const event of seen) expect(JSON.stringify(event)).not.toContain(email);
  });

  it('refuses the owner’s first message, then lets them reply to the finder', async () => {
    const { code, owner } = await ownedItem();
    const refused = await write(code, 'Hello?', { token: owner });
    expect(refused.status).toBe(403);
    expect(refused.body.response_code).toBe('CANNOT_FIND_YOUR_OWN_ITEM');
    expect((await call<HttpErrorBody>('POST', `/items/${code}/set-finder`, { token: owner, body: { email: 'me@example.test' } })).body.response_code).toBe('CANNOT_FIND_YOUR_OWN_ITEM');

    const found = await write(code, 'Found your keys');
    const published = waitForEvent(stack.nc, stack.namespace, 'messaging.message.created.v1', (event) => event.data.itemCode === code.replace(/-/g, '') && event.data.author === 'owner');
    const reply = await write(code, 'Thank you! Where are you?', { token: owner });
    expect(reply.status).toBe(201);
    expect(reply.body.message).toMatchObject({ author: 'owner', conversation_id: found.body.message.conversation_id });
    expect((await published).data.messageId).toBe(reply.body.message.id);
    const thread = await read(code, { finderToken: found.body.finder_token });
    expect(thread.body.map((message) => [message.author, message.content])).toEqual([
      ['finder', 'Found your keys'],
      ['owner', 'Thank you! Where are you?'],
    ]);
  });

  it('shows each finder only their own conversation, and the owner all of them, labelled', async () => {
    const { code, owner } = await ownedItem();
    const first = await write(code, 'First finder here');
    const second = await write(code, 'Second finder here');
    expect(second.body.message.conversation_id).not.toBe(first.body.message.conversation_id);

    expect((await read(code, { finderToken: second.body.finder_token })).body.map((message) => message.content)).toEqual(['Second finder here']);
    const thread = await read(code, { token: owner });
    expect(thread.body.map((message) => [message.finder, message.content])).toEqual([
      ['Finder 1', 'First finder here'],
      ['Finder 2', 'Second finder here'],
    ]);
    // The owner answers the latest finder unless they name a conversation.
    const toLatest = await write(code, 'To the latest', { token: owner });
    expect(toLatest.body.message.conversation_id).toBe(second.body.message.conversation_id);
    const toFirst = await write(code, 'To the first', { token: owner, body: { conversation_id: first.body.message.conversation_id } });
    expect(toFirst.body.message.conversation_id).toBe(first.body.message.conversation_id);
    expect((await read(code, { finderToken: first.body.finder_token })).body.map((message) => message.content)).toEqual(['First finder here', 'To the first']);
  });

  it('shows a passer-by nothing: no token, a made-up token, or another person’s account', async () => {
    const { code } = await ownedItem();
    await write(code, 'Something private');
    for (const options of [{}, { finderToken: 'AAAAAAAAAAAAAAAAAAAAAA' }, { token: testAccessToken().token }]) {
      const answer = await read(code, options);
      expect(answer.status).toBe(403);
      expect(answer.body.response_code).toBe('FORBIDDEN');
    }
  });

  it('counts unread finders’ messages until the owner reads them', async () => {
    const { code, owner } = await ownedItem();
    expect((await unread(code, owner)).body).toBe(0);
    const first = await write(code, 'One');
    await write(code, 'Two', { finderToken: first.body.finder_token });
    expect((await unread(code, owner)).body).toBe(2);
    expect((await read(code, { token: owner })).body.map((message) => message.is_read)).toEqual([false, false]);
    expect((await unread(code, owner)).body).toBe(0);
    expect((await read(code, { token: owner })).body.map((message) => message.is_read)).toEqual([true, true]);
    // Someone else's item is as missing as an unknown one.
    expect((await unread(code, testAccessToken().token)).status).toBe(404);
  });

  it('flags the owner’s items a finder wrote about', async () => {
    const found = await ownedItem();
    const quiet = await ownedItem();
    await write(found.code, 'Found it');
    const mine = await ownedItem();
    const answer = await call<Record<string, boolean>>('GET', `/user/found-items?codes=${found.code},${quiet.code},not-a-code`, { token: found.owner });
    expect(answer.body).toEqual({ [found.code]: true, [quiet.code]: false, 'not-a-code': false });
    // Another owner learns nothing about it.
    expect((await call('GET', `/user/found-items?codes=${found.code}`, { token: mine.owner })).body).toEqual({ [found.code]: false });
  });

  it('clears every conversation on reset, so the next finder starts afresh', async () => {
    const { code, owner } = await ownedItem();
    const first = await write(code, 'Found it');
    const cleared = waitForEvent(stack.nc, stack.namespace, 'messaging.conversation.cleared.v1', (event) => event.data.itemCode === code.replace(/-/g, ''));
    expect((await call('POST', `/user/items/${code}/reset`, { token: someoneElse() })).status).toBe(404);
    expect((await call('POST', `/user/items/${code}/reset`, { token: owner })).status).toBe(204);
    expect((await cleared).version).toBeGreaterThan(first.body.message.id);

    expect((await read(code, { token: owner })).body).toEqual([]);
    expect((await read(code, { finderToken: first.body.finder_token })).status).toBe(403);
    expect((await unread(code, owner)).body).toBe(0);
    expect((await call('GET', `/user/found-items?codes=${code}`, { token: owner })).body).toEqual({ [code]: false });
    // The old token opens a new conversation rather than failing: the finder page just writes again.
    const again = await write(code, 'Found it again', { finderToken: first.body.finder_token });
    expect(again.body.finder_token).toEqual(expect.any(String));
    expect(again.body.message.conversation_id).not.toBe(first.body.message.conversation_id);
  });

  it('deletes an item’s conversations with the item', async () => {
    const { code, owner } = await ownedItem();
    const first = await write(code, 'Found it');
    expect((await call('DELETE', `/user/items/${code}`, { token: owner })).status).toBe(204);
    await expectEventually(async () => {
      const { rows } = await stack.db.query(`SELECT count(*)::int AS count FROM "${stack.schemaOf('messaging')}".messages WHERE conversation_id = $1`, [first.body.message.conversation_id]);
      expect(rows[0].count).toBe(0);
    });
    const { rows } = await stack.db.query(`SELECT count(*)::int AS count FROM "${stack.schemaOf('messaging')}".conversations WHERE item_code = $1`, [code.replace(/-/g, '')]);
    expect(rows[0].count).toBe(0);
    expect((await write(code, 'Hello?')).status).toBe(404);
  });

  it('creates one message for a retried POST with the same Idempotency-Key, and answers the retry the same', async () => {
    const { code, owner } = await ownedItem();
    const idempotencyKey = randomUUID();
    const [first, retry] = await Promise.all([write(code, 'Found it', { idempotencyKey }), write(code, 'Found it', { idempotencyKey })]);
    expect(first.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect((await read(code, { token: owner })).body).toHaveLength(1);
    const reused = await write(code, 'Something else', { idempotencyKey });
    expect(reused.status).toBe(422);
    expect(reused.body.response_code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses empty, overlong and control-character messages, and items that are unknown or not yet activated', async () => {
    const { code } = await ownedItem();
    for (const content of ['   ', 'x'.repeat(2001), 'bell\u0007']) {
      const answer = await write(code, content);
      expect(answer.status).toBe(422);
      expect(answer.body.validation).toEqual({ content: expect.any(String) });
    }
    for (const missing of [unactivated, 'ABCD-EFGH-JKMN-PQRS', 'nope']) {
      const answer = await write(missing, 'Found it');
      expect({ missing, status: answer.status, code: answer.body.response_code }).toEqual({ missing, status: 404, code: 'ITEM_NOT_FOUND' });
    }
  });

  it('limits how much one client address writes to one tag, with Retry-After, and others can still write', async () => {
    const { code } = await ownedItem();
    const first = await write(code, 'Message 1');
    const finderToken = first.body.finder_token;
    const statuses = [first.status];
    for (let n = 2; n <= 21; n += 1) statuses.push((await write(code, `Message ${n}`, { finderToken })).status);
    expect(statuses.slice(0, 20).every((status) => status === 201)).toBe(true);
    expect(statuses[20]).toBe(429);
    const limited = await fetch(`${stack.api}/items/${code}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-finder-token': finderToken ?? '' },
      body: JSON.stringify({ content: 'Still there?' }),
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another tag is another count.
    const { code: other } = await ownedItem();
    expect((await write(other, 'Found this one too')).status).toBe(201);
  });

  it('limits how much one tag receives from every address together, with Retry-After', async () => {
    const { code } = await ownedItem();
    // 200 messages an hour to one tag (MESSAGE_LIMITS.perTag), each from another address, so no address reaches its own limit.
    // Twenty at a time: the count is Redis's, atomic, whatever the order of arrival.
    for (let batch = 0; batch < 10; batch += 1) {
      const numbers = Array.from({ length: 20 }, (_, index) => batch * 20 + index + 1);
      const statuses = await Promise.all(numbers.map(async (n) => (await write(code, `Message ${n}`, { forwardedFor: `198.51.100.${n}` })).status));
      expect(statuses).toEqual(numbers.map(() => 201));
    }
    const limited = await fetch(`${stack.api}/items/${code}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.1' },
      body: JSON.stringify({ content: 'One more' }),
    });
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as HttpErrorBody).response_code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts the route’s own limit with a write’s limits: 300 a minute from one address, whatever the tag, and a refused write counts for no tag', async () => {
    const [{ code }, { code: other }] = await Promise.all([ownedItem(), ownedItem()]);
    const address = '192.0.2.91';
    const post = (tag: string, content: string) =>
      fetch(`${stack.api}/items/${tag}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address }, body: JSON.stringify({ content }) });
    const first = await post(code, 'Found your keys');
    expect(first.status).toBe(201);
    expect([first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual(['300', '299']);
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    // 299 more to the tag: 19 written, then refused by the address's limit on the tag; the route counts every one.
    const answers: HttpErrorBody[] = [];
    for (let batch = 0; batch < 13; batch += 1) answers.push(...(await Promise.all(Array.from({ length: 23 }, async () => (await write(code, 'Hello', { forwardedFor: address })).body))));
    expect(answers.filter((body) => body.response_code === undefined)).toHaveLength(19);
    expect(answers.filter((body) => body.message === 'Too many messages for this tag. Try again later.')).toHaveLength(280);
    // The 301st, to another tag: refused by the route's limit, and counted for neither that tag nor the address on it.
    const refused = await post(other, 'Found this one too');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ response_code: 'RATE_LIMITED', message: 'Too many requests. Try again later.' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    const redis = new IORedis(stack.shared.REDIS_URL ?? '', { maxRetriesPerRequest: null });
    try {
      const counted = messageLimitKeys(stack.namespace, parseTagCode(other) ?? '', clientNetworkOf(address));
      expect([Number(await redis.get(counted.tagKey)), Number(await redis.get(counted.writerKey))]).toEqual([0, 0]);
    } finally {
      redis.disconnect();
    }
    expect((await write(other, 'I found them', { forwardedFor: '192.0.2.92' })).status).toBe(201);
  });

  const someoneElse = () => testAccessToken().token;
});
