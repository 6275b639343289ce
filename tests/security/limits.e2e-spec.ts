import { randomBytes, randomUUID } from 'node:crypto';
import type { CreateMessageResponse } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { reportFigure } from '../fault/harness/figures';
import { EventStreamClient } from '../support/event-stream-client';
import { ownedItem as ownedItemOf } from '../support/api';
import { startStack, type Stack } from '../support/stack';
import { call as callStack, clientAddress, type Answer, type CallOptions } from './support';

// S14 and A8: the limits keyed on the client address (the trusted proxy's X-Forwarded-For, TRUSTED_PROXIES) that
// hold where the general rate limit only slows a client down: open message streams per address, unknown codes on
// every route that takes one, and replays of a tokenless finder's first answer. An IPv6 client is its /64 (A9).
describe('limits per client address (S14, A8, A9)', () => {
  let stack: Stack;
  const streams: EventStreamClient[] = [];
  const call = <T = unknown>(method: string, path: string, options?: CallOptions): Promise<Answer<T>> => callStack<T>(stack, method, path, options);

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1', SSE_HEARTBEAT_MS: '500' } } });
  });

  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  afterAll(() => stack?.stop());

  const ownedItem = () => ownedItemOf(stack);

  const listen = (code: string, token: string, from: string) => EventStreamClient.open(`${stack.api}/items/${code}/messages/stream`, { token, from });

  it('S14: refuses a 21st open stream from one address with 429, while its 20 streams keep receiving and other addresses still open theirs', async () => {
    const { code, token } = await ownedItem();
    const from = clientAddress();
    for (let index = 0; index < 20; index += 1) {
      const opened = await listen(code, token, from);
      expect(opened.status).toBe(200);
      streams.push(opened.stream!);
    }

    const refused = await listen(code, token, from);
    expect(refused.status).toBe(429);
    expect(refused.error?.response_code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const elsewhere = await listen(code, token, clientAddress());
    expect(elsewhere.status).toBe(200);
    streams.push(elsewhere.stream!);

    const written = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your keys by the station' } });
    expect(written.status).toBe(201);
    await expectEventually(() => {
      for (const stream of streams) expect(stream.messages.map((message) => message.id)).toContain(written.body.message.id);
    });

    // A stream that ends gives its place back.
    streams.shift()!.close();
    await expectEventually(async () => {
      const again = await listen(code, token, from);
      if (again.stream) streams.push(again.stream);
      expect(again.status).toBe(200);
    });
    reportFigure({
      id: 'S14',
      test: 'open message streams from one client address (STREAMS_PER_ADDRESS 20)',
      figure: `stream 21 answered ${refused.status}; the 20 open streams and another address's received the next message; a closed stream's place reused`,
      size: '21 streams',
      passed: refused.status === 429,
    });
  });

  it('A8: makes every route that takes a code answer 429 to an address that missed 30 codes on any of them', async () => {
    const { code, token } = await ownedItem();
    const from = clientAddress();
    const unknownCode = () => Array.from({ length: 16 }, () => '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[Math.floor(Math.random() * 32)]).join('');

    const answers: number[] = [];
    for (let index = 0; index < 31; index += 1) answers.push((await call('POST', `/items/${unknownCode()}/messages`, { from, body: { content: 'hello' } })).status);
    expect(answers.slice(0, 30)).toEqual(Array(30).fill(404));
    expect(answers[30]).toBe(429);

    // Past the limit, a real tag's scan, its QR image, a message to it, the owner's own routes and activation are all refused to that address.
    const scan = await call('GET', `/items/${code}`, { from });
    expect(scan.status).toBe(429);
    expect(Number(scan.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call('GET', `/qr/${code}`, { from, root: true })).status).toBe(429);
    expect((await call('POST', `/items/${code}/messages`, { from, body: { content: 'hello' } })).status).toBe(429);
    expect((await call('GET', `/user/items/${code}`, { from, token })).status).toBe(429);
    expect((await call('POST', '/claim', { from, body: { code, email: `someone-${randomUUID()}@example.test` } })).status).toBe(429);

    // An owner's own routes answer another person's item as a missing one: their 404s tell nothing and count nothing.
    const owner = clientAddress();
    for (let index = 0; index < 35; index += 1) expect((await call('GET', `/user/items/${unknownCode()}`, { from: owner, token })).status).toBe(404);
    expect((await call('GET', `/items/${code}`, { from: owner })).status).toBe(200);

    // Another address is not touched.
    expect((await call('GET', `/items/${code}`, { from: clientAddress() })).status).toBe(200);

    // Misses on different routes add up: activation (its own limit allows 20 tries a minute) and QR images.
    const claimer = clientAddress();
    const mixed: number[] = [];
    for (let index = 0; index < 15; index += 1) mixed.push((await call('POST', '/claim', { from: claimer, body: { code: unknownCode(), email: `someone-${randomUUID()}@example.test` } })).status);
    for (let index = 0; index < 15; index += 1) mixed.push((await call('GET', `/qr/${unknownCode()}`, { from: claimer, root: true })).status);
    expect(mixed).toEqual(Array(30).fill(404));
    const afterClaims = await call('GET', `/items/${code}`, { from: claimer });
    expect(afterClaims.status).toBe(429);
    reportFigure({
      id: 'A8',
      test: 'unknown codes on any route with a code (messages, activation), then a real tag from the same address',
      figure: `scan, QR, message, owner read and activation of a real tag answered 429 after 30 misses on messages; scan 429 after 15 on activation and 15 on QR images; other addresses 200`,
      size: '31 + 15 + 15 misses',
      passed: scan.status === 429 && afterClaims.status === 429,
    });
  });

  it('A9: counts an IPv6 host by its /64, so moving to a new address of the block per request meets the same limits', async () => {
    const { code } = await ownedItem();
    // One host's block (a home, a server): 2^64 addresses to choose from.
    const block = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
    const inBlock = () => `${block}:${Array.from({ length: 4 }, () => randomBytes(2).toString('hex')).join(':')}`;
    const unknownCode = () => Array.from({ length: 16 }, () => '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[Math.floor(Math.random() * 32)]).join('');

    const misses: number[] = [];
    for (let index = 0; index < 31; index += 1) misses.push((await call('GET', `/items/${unknownCode()}`, { from: inBlock() })).status);
    expect(misses.slice(0, 30)).toEqual(Array(30).fill(404));
    expect(misses[30]).toBe(429);
    // Any address of the block is refused a real tag now; the neighbouring block is another client.
    const fromBlock = await call('GET', `/items/${code}`, { from: inBlock() });
    expect(fromBlock.status).toBe(429);
    const [a, b, c, d] = block.split(':');
    const neighbour = `${a}:${b}:${c}:${(parseInt(d, 16) ^ 1).toString(16)}::1`;
    expect((await call('GET', `/items/${code}`, { from: neighbour })).status).toBe(200);

    // A finder's messages to one tag: 20 an hour per client, whichever address of its block each comes from.
    const { code: other } = await ownedItem();
    const writerBlock = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
    const written: number[] = [];
    for (let index = 0; index < 21; index += 1) written.push((await call('POST', `/items/${other}/messages`, { from: `${writerBlock}::${(index + 1).toString(16)}`, body: { content: `Found it, note ${index}` } })).status);
    expect(written.slice(0, 20)).toEqual(Array(20).fill(201));
    expect(written[20]).toBe(429);
    reportFigure({
      id: 'A9',
      test: 'unknown codes and a tag\'s messages from one IPv6 /64, a new address of the block for each request',
      figure: `scan of a real tag ${fromBlock.status} after 30 misses from 31 addresses of one /64 (the next /64: 200); message 21 from 21 addresses of one /64 answered ${written[20]}`,
      size: '31 misses, 21 messages',
      passed: fromBlock.status === 429 && written[20] === 429,
    });
  });

  it('gives two tokenless finders from different addresses their own answer for the same Idempotency-Key', async () => {
    const { code } = await ownedItem();
    const key = `first-message-${randomUUID()}`;
    const [first, second] = [clientAddress(), clientAddress()];
    const fromFirst = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { from: first, headers: { 'idempotency-key': key }, body: { content: 'I am the first finder' } });
    const fromSecond = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { from: second, headers: { 'idempotency-key': key }, body: { content: 'I am the second finder' } });
    expect([fromFirst.status, fromSecond.status]).toEqual([201, 201]);
    expect(fromSecond.body.finder_token).toBeDefined();
    expect(fromSecond.body.finder_token).not.toBe(fromFirst.body.finder_token);
    expect(fromSecond.body.message.content).toBe('I am the second finder');

    // The first finder's own retry still gets their first answer.
    const retry = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { from: first, headers: { 'idempotency-key': key }, body: { content: 'I am the first finder' } });
    expect(retry.status).toBe(201);
    expect(retry.body.finder_token).toBe(fromFirst.body.finder_token);
    expect(retry.body.message.id).toBe(fromFirst.body.message.id);
  });
});
