import type { CreateMessageResponse, HttpErrorBody, Message } from '@homing/contracts';
import { expectEventually, freePort, ServiceProcess, waitForEvent } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { EventStreamClient, type Caller } from '../support/event-stream-client';
import { apiCall, ownedItem, type ApiCaller } from '../support/api';
import { rpcCallsDuring, startStack, type Stack } from '../support/stack';

// The finder page's live thread: server-sent events fed by messaging's events, and polls with nothing new answered
// by the gateway alone.
describe('messages as they are written', () => {
  let stack: Stack;
  const streams: EventStreamClient[] = [];

  beforeAll(async () => {
    // Heartbeats every 15 s by default: a short interval here, so one arrives while a test waits.
    stack = await startStack({ env: { gateway: { SSE_HEARTBEAT_MS: '200' } } });
  });

  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  afterAll(() => stack?.stop());

  const call = <T>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);

  const write = (code: string, content: string, caller: Caller = {}) => call<CreateMessageResponse>('POST', `/items/${code}/messages`, { ...caller, body: { content } });
  const poll = (code: string, after: number, caller: Caller) => call<Message[] & HttpErrorBody>('GET', `/items/${code}/messages?after=${after}`, caller);

  async function listen(code: string, caller: Caller & { lastEventId?: string } = {}, base = stack.api): Promise<EventStreamClient> {
    const opened = await EventStreamClient.open(`${base}/items/${code}/messages/stream`, caller);
    expect(opened.status).toBe(200);
    streams.push(opened.stream!);
    return opened.stream!;
  }

  /** An item of a new owner, once messaging has learnt who owns it, with a finder's first message. */
  async function foundItem(): Promise<{ code: string; owner: string; finderToken: string; first: Message }> {
    const { code, token } = await ownedItem(stack);
    const first = await write(code, 'I found your keys');
    expect(first.status).toBe(201);
    return { code, owner: token, finderToken: first.body.finder_token!, first: first.body.message };
  }

  const messagingCallsDuring = (work: () => Promise<void>) => rpcCallsDuring(stack, 'messaging', work);

  /** SQL statements messaging and items have run for callers (RPCs, events), from their /metrics; not the relay's own. */
  async function queriesForCallers(): Promise<{ messaging: number; items: number }> {
    const counts = { messaging: 0, items: 0 };
    for (const service of ['messaging', 'items'] as const) {
      const metrics = await (await fetch(`http://127.0.0.1:${stack.services.get(service)!.port}/metrics`)).text();
      for (const [, labels, value] of metrics.matchAll(/^homing_db_queries_total\{([^}]*)\} (\d+)$/gm)) {
        if (!labels.includes('work="background"')) counts[service] += Number(value);
      }
    }
    return counts;
  }

  it('pushes a new message to the owner’s and the finder’s open streams without their polling', async () => {
    const { code, owner, finderToken } = await foundItem();
    const ownerStream = await listen(code, { token: owner });
    const finderStream = await listen(code, { finderToken });
    const otherFinder = await write(code, 'I saw them too');
    const otherStream = await listen(code, { finderToken: otherFinder.body.finder_token });

    const second = await write(code, 'They are at the station', { finderToken });
    // The owner's stream has every conversation: the second finder's first message too.
    await expectEventually(() => expect(ownerStream.messages.map((message) => message.content)).toEqual(['I saw them too', 'They are at the station']));
    await expectEventually(() => expect(finderStream.messages.map((message) => message.content)).toEqual(['They are at the station']));
    expect(ownerStream.events.filter((event) => event.event === 'message').map((event) => event.id)).toEqual([otherFinder.body.message.id, second.body.message.id].map(String));
    // With two finders the owner sees who wrote; the finder never sees the owner's labels.
    expect(ownerStream.messages[1]).toEqual({ ...second.body.message, finder: 'Finder 1' });
    expect(finderStream.messages[0]).toEqual(second.body.message);

    const reply = await write(code, 'Thank you!', { token: owner });
    await expectEventually(() => expect(finderStream.messages.map((message) => message.id)).toEqual([second.body.message.id, reply.body.message.id]));
    // The other finder's stream carries only their own conversation.
    const own = await write(code, 'Anyone there?', { finderToken: otherFinder.body.finder_token });
    await expectEventually(() => expect(otherStream.messages.map((message) => message.content)).toEqual(['Anyone there?']));
    await expectEventually(() =>
      expect(ownerStream.messages.map((message) => message.id)).toEqual([otherFinder.body.message.id, second.body.message.id, reply.body.message.id, own.body.message.id]),
    );
    expect(finderStream.messages).toHaveLength(2);
  });

  it('keeps an idle stream open with heartbeat comment lines', async () => {
    const { code, finderToken } = await foundItem();
    const stream = await listen(code, { finderToken });
    await expectEventually(() => expect(stream.comments).toContain('heartbeat'));
    expect(stream.events).toEqual([]);
  });

  it('resumes after Last-Event-ID with the messages the client missed', async () => {
    const { code, finderToken, first } = await foundItem();
    const missed = await write(code, 'Still here', { finderToken });
    const stream = await listen(code, { finderToken, lastEventId: String(first.id) });
    await expectEventually(() => expect(stream.messages.map((message) => message.content)).toEqual(['Still here']));
    const next = await write(code, 'Bye', { finderToken });
    await expectEventually(() => expect(stream.messages.map((message) => message.id)).toEqual([missed.body.message.id, next.body.message.id]));
  });

  it('tells the streams of a reset item, and ends the finder’s, whose conversation is gone', async () => {
    const { code, owner, finderToken } = await foundItem();
    const ownerStream = await listen(code, { token: owner });
    const finderStream = await listen(code, { finderToken });
    expect((await call('POST', `/user/items/${code}/reset`, { token: owner })).status).toBe(204);
    await expect(finderStream.closed).resolves.toBe('ended');
    expect(finderStream.events.map((event) => event.event)).toEqual(['cleared']);
    await expectEventually(() => expect(ownerStream.events.map((event) => event.event)).toEqual(['cleared']));
  });

  it('refuses a stream to a passer-by, to an unknown item, and with a Last-Event-ID that is no message id', async () => {
    const { code, finderToken } = await foundItem();
    const passerBy = await EventStreamClient.open(`${stack.api}/items/${code}/messages/stream`);
    expect(passerBy).toMatchObject({ status: 403, error: { response_code: 'FORBIDDEN' } });
    const stranger = await EventStreamClient.open(`${stack.api}/items/${code}/messages/stream`, { token: testAccessToken().token });
    expect(stranger).toMatchObject({ status: 403, error: { response_code: 'FORBIDDEN' } });
    const unknown = await EventStreamClient.open(`${stack.api}/items/ABCD-EFGH-JKMN-PQRS/messages/stream`, { finderToken });
    expect(unknown).toMatchObject({ status: 404, error: { response_code: 'ITEM_NOT_FOUND' } });
    const badResume = await EventStreamClient.open(`${stack.api}/items/${code}/messages/stream`, { finderToken, lastEventId: 'yesterday' });
    expect(badResume).toMatchObject({ status: 422, error: { response_code: 'VALIDATION_ERROR', validation: { 'Last-Event-ID': 'invalid' } } });
  });

  it('answers a poll with nothing new without asking messaging, and still refuses a passer-by', async () => {
    const { code, owner, finderToken } = await foundItem();
    const latest = await write(code, 'At the station', { finderToken });
    const latestId = latest.body.message.id;
    // The gateway learns the item's newest message from the event; the first quiet poll asks messaging who the caller is.
    await expectEventually(async () => {
      const callsOfOnePoll = await messagingCallsDuring(async () => expect((await poll(code, latestId, { finderToken })).body).toEqual([]));
      expect(callsOfOnePoll).toEqual([]);
    });

    const calls = await messagingCallsDuring(async () => {
      for (const caller of [{ finderToken }, { token: owner }, { finderToken }, { token: owner }]) {
        const answer = await poll(code, latestId, caller);
        expect(answer).toEqual({ status: 200, body: [] });
      }
    });
    // The owner's first quiet poll is authorised once; every other one never reaches messaging (and so no SQL).
    expect(calls).toEqual(['messaging.rpc.thread-access'].map((subject) => `${stack.namespace}.${subject}`));

    // Anything older is messaging's to answer; a passer-by is refused, not told "nothing new".
    const olderPoll = await messagingCallsDuring(async () => expect((await poll(code, latestId - 1, { finderToken })).body.map((message) => message.id)).toEqual([latestId]));
    expect(olderPoll).toEqual([`${stack.namespace}.messaging.rpc.list-messages`]);
    expect(await poll(code, latestId, {})).toMatchObject({ status: 403, body: { response_code: 'FORBIDDEN' } });

    // A new message moves the watermark: the same poll then gets it.
    const published = waitForEvent(stack.nc, stack.namespace, 'messaging.message.created.v1', (event) => event.data.itemCode === code.replace(/-/g, ''));
    const reply = await write(code, 'Coming!', { token: owner });
    await published;
    await expectEventually(async () => expect((await poll(code, latestId, { finderToken })).body.map((message) => message.id)).toEqual([reply.body.message.id]));
  });

  it('runs no SQL in messaging or items for polls with nothing new, as their query counters show', async () => {
    const { code, owner, finderToken } = await foundItem();
    const latestId = (await write(code, 'At the station', { finderToken })).body.message.id;
    const callers = [{ finderToken }, { token: owner }];
    // Warm-up: the gateway has the newest id from the event and has authorised each caller once.
    for (const caller of callers) {
      await expectEventually(async () => {
        const calls = await messagingCallsDuring(async () => expect(await poll(code, latestId, caller)).toEqual({ status: 200, body: [] }));
        expect(calls).toEqual([]);
      });
    }

    const before = await queriesForCallers();
    expect(before.messaging).toBeGreaterThan(0);
    for (let n = 0; n < 10; n += 1) expect(await poll(code, latestId, callers[n % 2])).toEqual({ status: 200, body: [] });
    expect(await queriesForCallers()).toEqual(before);

    // A poll with something to answer is messaging's, and is counted.
    expect((await poll(code, latestId - 1, { finderToken })).body.map((message) => message.id)).toEqual([latestId]);
    expect((await queriesForCallers()).messaging).toBeGreaterThan(before.messaging);
  });

  it('ends open streams cleanly when the gateway shuts down', async () => {
    const { code, finderToken } = await foundItem();
    const port = await freePort();
    const gateway = new ServiceProcess('gateway', port, { ...stack.shared, WEB_DIST: 'dist/apps/web', PUBLIC_URL: `http://localhost:${port}` });
    await gateway.start();
    try {
      const stream = await listen(code, { finderToken }, `http://127.0.0.1:${port}/api/v1`);
      const stopped = gateway.stop();
      await expect(stream.closed).resolves.toBe('ended');
      expect(await stopped).toBe(0);
    } finally {
      await gateway.stop();
    }
  });
});
