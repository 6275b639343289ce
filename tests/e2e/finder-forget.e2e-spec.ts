import { randomUUID } from 'node:crypto';
import type { CreateMessageResponse, FinderDetails, HttpErrorBody, Message } from '@homing/contracts';
import { expectEventually, waitForEvent } from '@homing/testing';
import { apiCall, ownedItem as ownedItemOf, type ApiCaller } from '../support/api';
import { startStack, type Stack } from '../support/stack';

// A finder forgets themselves (DELETE /items/{code}/conversation), through the whole stack.
describe('a finder who deletes their conversation', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });

  afterAll(() => stack?.stop());

  const call = <T = HttpErrorBody>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);

  const messaging = (table: string) => `"${stack.schemaOf('messaging')}".${table}`;
  const notifications = (table: string) => `"${stack.schemaOf('notifications')}".${table}`;

  it('erases their messages, address and token, tells the owner, drops their push subscription and delivery records, and still replays a retried first message', async () => {
    const { code, token: owner } = await ownedItemOf(stack);
    const idempotencyKey = randomUUID();
    const first = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your umbrella at the bakery' }, idempotencyKey });
    expect(first.status).toBe(201);
    const finderToken = first.body.finder_token as string;
    const conversationId = first.body.message.conversation_id;
    expect((await call('POST', `/items/${code}/set-finder`, { finderToken, body: { email: 'forgetful.finder@example.test' } })).status).toBe(200);
    expect((await call('POST', `/items/${code}/messages`, { token: owner, body: { content: 'Thank you so much!' } })).status).toBe(201);
    // What was e-mailed to the finder is on record (the owner's reply), by the conversation's id.
    const deliveriesToFinder = async () =>
      (await stack.db.query(`SELECT count(*)::int AS n FROM ${notifications('deliveries')} WHERE right(job_id, 37) = '_' || $1`, [conversationId])).rows[0].n;
    await expectEventually(async () => expect(await deliveriesToFinder()).toBeGreaterThan(0));
    const browser = stack.push.subscribe();
    expect((await call('POST', `/items/${code}/push/register`, { finderToken, body: browser })).status).toBe(204);
    await expectEventually(async () =>
      expect((await stack.db.query(`SELECT count(*)::int AS n FROM ${notifications('push_subscriptions')} WHERE conversation_id = $1`, [conversationId])).rows[0].n).toBe(1),
    );

    // The idempotency table never holds the finder token in clear, before or after.
    const tokenInClear = async () =>
      (await stack.db.query(`SELECT count(*)::int AS n FROM ${messaging('idempotency_keys')} WHERE response::text LIKE $1 OR key = $2`, [`%${finderToken}%`, idempotencyKey])).rows[0].n;
    expect(await tokenInClear()).toBe(0);

    const left = waitForEvent(stack.nc, stack.namespace, 'messaging.finder.left.v1', (event) => event.data.conversationId === conversationId);
    const forgotten = await call('DELETE', `/items/${code}/conversation`, { finderToken });
    expect(forgotten).toEqual({ status: 204, body: undefined });
    const event = await left;
    expect(JSON.stringify(event)).not.toContain('forgetful');
    expect(JSON.stringify(event)).not.toContain(finderToken);

    // Gone from the database: the finder's messages, address, language and every token.
    const [conversation] = (await stack.db.query(`SELECT finder_email, finder_token_hash, finder_left_at FROM ${messaging('conversations')} WHERE id = $1`, [conversationId])).rows;
    expect(conversation).toEqual({ finder_email: null, finder_token_hash: null, finder_left_at: expect.any(Date) });
    const messages = (await stack.db.query(`SELECT author, content FROM ${messaging('messages')} WHERE conversation_id = $1`, [conversationId])).rows;
    expect(messages).toEqual([{ author: 'owner', content: 'Thank you so much!' }]);
    expect((await stack.db.query(`SELECT count(*)::int AS n FROM ${messaging('finder_tokens')} WHERE conversation_id = $1`, [conversationId])).rows[0].n).toBe(0);
    expect((await stack.db.query(`SELECT count(*)::int AS n FROM ${messaging('conversations')} WHERE finder_email ILIKE '%forgetful%'`)).rows[0].n).toBe(0);

    // The token is refused, as a token of a reset conversation is; a second call too.
    expect((await call<Message[] & HttpErrorBody>('GET', `/items/${code}/messages`, { finderToken })).status).toBe(403);
    expect(await call('DELETE', `/items/${code}/conversation`, { finderToken })).toMatchObject({ status: 403, body: { response_code: 'FORBIDDEN' } });
    expect(await call('DELETE', `/items/${code}/conversation`)).toMatchObject({ status: 403, body: { response_code: 'FORBIDDEN' } });
    expect(await call('DELETE', `/items/${code}/conversation`, { token: owner, finderToken })).toMatchObject({ status: 403 });

    // The owner's thread: their reply stays, the finder's messages are gone, the finder left and takes no reply.
    const thread = await call<Message[]>('GET', `/items/${code}/messages`, { token: owner });
    expect(thread.body.map((message) => [message.author, message.content])).toEqual([['owner', 'Thank you so much!']]);
    expect((await call<FinderDetails>('GET', `/items/${code}/finder-details`, { token: owner })).body).toEqual({ finder_known: false, finder_left: true });
    expect(await call('POST', `/items/${code}/messages`, { token: owner, body: { content: 'Are you there?' } })).toMatchObject({ status: 409, body: { response_code: 'FINDER_LEFT' } });

    // Notifications deleted the conversation's push subscription, and the records of what was sent to the finder.
    await expectEventually(async () =>
      expect((await stack.db.query(`SELECT count(*)::int AS n FROM ${notifications('push_subscriptions')} WHERE conversation_id = $1`, [conversationId])).rows[0].n).toBe(0),
    );
    await expectEventually(async () => expect(await deliveriesToFinder()).toBe(0));

    // A retried first message still gets its first answer; the table still holds no token in clear.
    const replay = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your umbrella at the bakery' }, idempotencyKey });
    expect(replay).toEqual({ status: 201, body: first.body });
    expect(await tokenInClear()).toBe(0);
  });

  it('drops the finders’ push subscriptions and delivery records when an owner resets the thread or deletes the item', async () => {
    const subscriptionsOf = async (conversationId: string) =>
      (await stack.db.query(`SELECT count(*)::int AS n FROM ${notifications('push_subscriptions')} WHERE conversation_id = $1`, [conversationId])).rows[0].n;
    // What was e-mailed to a finder is on record by their conversation's id (the job id's last part).
    const recordsTo = async (conversationId: string) =>
      (await stack.db.query(`SELECT count(*)::int AS n FROM ${notifications('deliveries')} WHERE right(job_id, 37) = '_' || $1`, [conversationId])).rows[0].n;
    /** A finder who wrote about the item, left an address the owner replied to, and turned push on in their browser. */
    async function subscribedFinder(item: { code: string; token: string }): Promise<string> {
      const first = await call<CreateMessageResponse>('POST', `/items/${item.code}/messages`, { body: { content: 'Found it by the station' } });
      expect(first.status).toBe(201);
      const finderToken = first.body.finder_token as string;
      const conversationId = first.body.message.conversation_id;
      expect((await call('POST', `/items/${item.code}/set-finder`, { finderToken, body: { email: `finder-${randomUUID()}@example.test` } })).status).toBe(200);
      expect((await call('POST', `/items/${item.code}/messages`, { token: item.token, body: { content: 'Thank you!' } })).status).toBe(201);
      expect((await call('POST', `/items/${item.code}/push/register`, { finderToken, body: stack.push.subscribe() })).status).toBe(204);
      await expectEventually(async () => {
        expect(await subscriptionsOf(conversationId)).toBe(1);
        expect(await recordsTo(conversationId)).toBeGreaterThan(0);
      });
      return conversationId;
    }

    const reset = await ownedItemOf(stack);
    const resetFinder = await subscribedFinder(reset);
    const deleted = await ownedItemOf(stack);
    const deletedFinder = await subscribedFinder(deleted);
    const untouched = await ownedItemOf(stack);
    const untouchedFinder = await subscribedFinder(untouched);

    expect((await call('POST', `/user/items/${reset.code}/reset`, { token: reset.token })).status).toBe(204);
    expect((await call('DELETE', `/user/items/${deleted.code}`, { token: deleted.token })).status).toBe(204);
    await expectEventually(async () => {
      expect(await subscriptionsOf(resetFinder)).toBe(0);
      expect(await subscriptionsOf(deletedFinder)).toBe(0);
      expect(await recordsTo(resetFinder)).toBe(0);
      expect(await recordsTo(deletedFinder)).toBe(0);
    });
    expect(await subscriptionsOf(untouchedFinder)).toBe(1);
    expect(await recordsTo(untouchedFinder)).toBeGreaterThan(0);
  });
});
