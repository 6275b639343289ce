import { randomUUID } from 'node:crypto';
import type { ConversationState, CreateMessageResponse, HandoverCode, HandoverResult, HttpErrorBody, Message, PublicItem } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { apiCall, apiExchange, ownedItem, type ApiCaller } from '../support/api';
import { EventStreamClient } from '../support/event-stream-client';
import { startStack, type Stack } from '../support/stack';

// The safe hand-over through the whole stack (issue 26): contact details a finder writes reach the owner masked in
// every channel until both agreed to share them; the owner's daily code, told at the meeting, closes the case.
describe('the safe hand-over', () => {
  const PHONE = '06-12345678';
  const IBAN = 'NL91 ABNA 0417 1643 00';
  const TEXT = `Bel me op ${PHONE} of maak de beloning over naar ${IBAN}, dank je!`;
  let stack: Stack;
  const streams: EventStreamClient[] = [];

  beforeAll(async () => {
    stack = await startStack();
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await stack?.stop();
  });

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);
  const readable = (text: string) => text.includes('12345678') || text.includes('ABNA') || text.includes('0417');

  /** An owner identity knows (so e-mails reach them), with a browser subscribed to pushes and an item marked lost. */
  async function ownerWithLostItem() {
    const email = `owner-${randomUUID()}@example.test`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'nl' }), { timeout: 5000 });
    const { userId } = reply.json<{ userId: string }>();
    const { token } = testAccessToken({ id: userId, email });
    const created = await call<PublicItem>('POST', '/items', { token, body: { name: 'Fiets' } });
    const code = created.body.code;
    await expectEventually(async () => expect((await call('GET', `/user/items/${code}/unread-count`, { token })).status).toBe(200));
    expect((await call('PATCH', `/user/items/${code}`, { token, body: { lost: true } })).status).toBe(200);
    return { email, token, code };
  }

  it('masks a finder’s phone number and IBAN for the owner in every channel until both agreed, never for the finder', async () => {
    const owner = await ownerWithLostItem();
    const opened = await EventStreamClient.open(`${stack.api}/items/${owner.code}/messages/stream`, { token: owner.token });
    expect(opened.status).toBe(200);
    const stream = opened.stream!;
    streams.push(stream);

    const written = await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { body: { content: TEXT } });
    expect(written.status).toBe(201);
    const finderToken = written.body.finder_token as string;
    // Without a push subscription the owner is e-mailed at once; then, subscribed, pushed about the next message.
    await expectEventually(async () => expect(stack.mail.mailsTo(owner.email).some((mail) => mail.text.includes('/login?c='))).toBe(true));
    const browser = stack.push.subscribe();
    expect((await call('POST', '/user/push/register', { token: owner.token, body: browser })).status).toBe(204);
    expect((await call('POST', `/items/${owner.code}/messages`, { finderToken, body: { content: `Nogmaals: ${PHONE}` } })).status).toBe(201);
    const [push] = await stack.push.waitForPushes(browser);
    expect(readable(push.text)).toBe(false);
    for (const mail of stack.mail.mailsTo(owner.email)) expect(readable(`${mail.text} ${String(mail.html)}`)).toBe(false);
    // The writer's own answer and thread: as written.
    expect(written.body.message.content).toBe(TEXT);
    expect((await call<Message[]>('GET', `/items/${owner.code}/messages`, { finderToken })).body[0]).toMatchObject({ content: TEXT });
    expect((await call<Message[]>('GET', `/items/${owner.code}/messages`, { finderToken })).body[0].masked).toBeUndefined();

    // The owner: the API, the stream, the e-mail and the push.
    const [seen, second] = (await call<Message[]>('GET', `/items/${owner.code}/messages`, { token: owner.token })).body;
    expect(second).toMatchObject({ content: 'Nogmaals: +31 6 •••• ••78', masked: ['phone'] });
    expect(readable(seen.content)).toBe(false);
    expect(seen.content).toContain('+31 6 •••• ••78');
    expect(seen.content).toContain('NL•• •••• •••• ••43 00');
    expect(seen.masked).toEqual(['phone', 'iban']);
    await expectEventually(async () => expect(stream.messages.map((message) => message.id)).toContain(seen.id));
    const streamed = stream.messages.find((message) => message.id === seen.id) as Message & { other_side?: unknown };
    expect(readable(streamed.content)).toBe(false);
    expect(streamed.other_side).toBeUndefined();

    // One side's consent is not enough, and may be withdrawn while the other has not agreed.
    const consent = (caller: ApiCaller, agree: boolean) => apiExchange<ConversationState & HttpErrorBody>(stack, 'POST', `/items/${owner.code}/contact-consent`, { ...caller, body: { agree } });
    expect((await consent({ finderToken }, true)).body).toMatchObject({ contact_consent: { finder: true, owner: false }, contact_shared: false, closed_at: null });
    expect(readable((await call<Message[]>('GET', `/items/${owner.code}/messages`, { token: owner.token })).body[0].content)).toBe(false);
    expect((await consent({ finderToken }, false)).body.contact_consent).toEqual({ finder: false, owner: false });
    expect((await consent({ token: owner.token }, true)).body.contact_consent).toEqual({ finder: false, owner: true });
    const lastSeen = (await call<Message[]>('GET', `/items/${owner.code}/messages`, { token: owner.token })).body.at(-1)!.version;
    const both = await consent({ finderToken }, true);
    expect(both.body).toMatchObject({ contact_consent: { finder: true, owner: true }, contact_shared: true });

    // Shared: the owner's next polls bring the message again, as written; neither side can withdraw any more. The
    // restamp reaches the gateway's poll watermark as a receipts event through the outbox, so within moments, not at once.
    await expectEventually(async () => {
      const again = (await call<Message[]>('GET', `/items/${owner.code}/messages?after=${lastSeen}`, { token: owner.token })).body;
      expect(again.find((message) => message.id === seen.id)).toMatchObject({ content: TEXT });
      expect(again.find((message) => message.id === seen.id)?.masked).toBeUndefined();
    });
    const late = await consent({ token: owner.token }, false);
    expect({ status: late.status, code: late.body.response_code }).toEqual({ status: 409, code: 'CONTACT_ALREADY_SHARED' });
    expect((await call<ConversationState>('GET', `/items/${owner.code}/conversation`, { finderToken })).body.contact_shared).toBe(true);
    // A passer-by has no conversation to ask about.
    expect((await call('GET', `/items/${owner.code}/conversation`)).status).toBe(403);
  });

  it('closes the case with the owner’s code: wrong codes are 422, the sixth within the hour 429; then no message, and the item is found', async () => {
    const owner = await ownerWithLostItem();
    const guesser = (await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { body: { content: 'Ik heb hem' } })).body.finder_token as string;
    const finder = (await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { body: { content: 'Ik heb je fiets gevonden' } })).body.finder_token as string;
    const { body: today } = await call<HandoverCode>('GET', `/user/items/${owner.code}/handover-code`, { token: owner.token });
    expect(today.code).toMatch(/^\d{6}$/);
    expect((await call('GET', `/user/items/${owner.code}/handover-code`, { token: testAccessToken().token })).status).toBe(404);

    const wrong = String((Number(today.code) + 500_000) % 1_000_000).padStart(6, '0');
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const answer = await call<HttpErrorBody>('POST', `/items/${owner.code}/handover`, { finderToken: guesser, body: { code: wrong } });
      expect({ attempt, status: answer.status, validation: answer.body.validation }).toEqual({ attempt, status: 422, validation: { code: 'invalid' } });
    }
    const sixth = await apiExchange<HttpErrorBody>(stack, 'POST', `/items/${owner.code}/handover`, { finderToken: guesser, body: { code: today.code } });
    expect({ status: sixth.status, code: sixth.body.response_code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(3000);
    // Only a finder, by their token, hands over.
    expect((await call('POST', `/items/${owner.code}/handover`, { token: owner.token, body: { code: today.code } })).status).toBe(403);

    const closed = await call<HandoverResult>('POST', `/items/${owner.code}/handover`, { finderToken: finder, body: { code: `${today.code.slice(0, 3)} ${today.code.slice(3)}` } });
    expect(closed.status).toBe(200);
    expect(closed.body.closed_at).toEqual(expect.any(String));
    expect(closed.body.reward).toBeUndefined();

    const more = await call<HttpErrorBody>('POST', `/items/${owner.code}/messages`, { finderToken: finder, body: { content: 'Nog één ding' } });
    expect({ status: more.status, code: more.body.response_code }).toEqual({ status: 409, code: 'CONVERSATION_CLOSED' });
    const state = (await call<ConversationState>('GET', `/items/${owner.code}/conversation`, { finderToken: finder })).body;
    expect(state.closed_at).toBe(closed.body.closed_at);
    const reply = await call<HttpErrorBody>('POST', `/items/${owner.code}/messages`, { token: owner.token, body: { content: 'Dank je!', conversation_id: state.conversation_id } });
    expect({ status: reply.status, code: reply.body.response_code }).toEqual({ status: 409, code: 'CONVERSATION_CLOSED' });
    expect((await call<HttpErrorBody>('POST', `/items/${owner.code}/handover`, { finderToken: finder, body: { code: today.code } })).body.response_code).toBe('CONVERSATION_CLOSED');
    await expectEventually(async () => expect((await call<PublicItem>('GET', `/items/${owner.code}`)).body.lost).toBe(false));
    // The other finder's conversation stays open.
    expect((await call('POST', `/items/${owner.code}/messages`, { finderToken: guesser, body: { content: 'Fijn!' } })).status).toBe(201);
  });

  it('takes at most 20 hand-over tries an hour for an item across its conversations: a guesser cannot open conversation after conversation', async () => {
    // Each conversation may try 5 wrong codes an hour, and a tag takes 200 messages an hour: without a cap for the item,
    // anyone who read the tag had 1,000 guesses an hour at a 6-digit code (today's or yesterday's both close the case).
    const owner = await ownerWithLostItem();
    const { body: today } = await call<HandoverCode>('GET', `/user/items/${owner.code}/handover-code`, { token: owner.token });
    const wrong = String((Number(today.code) + 500_000) % 1_000_000).padStart(6, '0');
    const newConversation = async () => (await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { body: { content: 'Gevonden' } })).body.finder_token as string;
    for (let conversation = 0; conversation < 5; conversation += 1) {
      const guesser = await newConversation();
      for (let attempt = 0; attempt < 4; attempt += 1) {
        expect((await call('POST', `/items/${owner.code}/handover`, { finderToken: guesser, body: { code: wrong } })).status).toBe(422);
      }
    }
    const lucky = await apiExchange<HttpErrorBody>(stack, 'POST', `/items/${owner.code}/handover`, { finderToken: await newConversation(), body: { code: today.code } });
    expect({ status: lucky.status, code: lucky.body.response_code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(lucky.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect((await call<PublicItem>('GET', `/items/${owner.code}`)).body.lost).toBe(true);
  });

  it('brings the finder’s message again, as written, to the owner’s open stream once both agreed', async () => {
    const WRITTEN = 'Call me on 06-12345678';
    const { code, token: owner } = await ownedItem(stack);
    const opened = await EventStreamClient.open(`${stack.api}/items/${code}/messages/stream`, { token: owner });
    expect(opened.status).toBe(200);
    const stream = opened.stream!;
    streams.push(stream);
    const written = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: WRITTEN } });
    const finderToken = written.body.finder_token!;
    await expectEventually(() => expect(stream.messages.map((m) => m.id)).toContain(written.body.message.id));
    expect(stream.messages[0].content).not.toBe(WRITTEN);

    expect((await call('POST', `/items/${code}/contact-consent`, { token: owner, body: { agree: true } })).status).toBe(200);
    expect((await call('POST', `/items/${code}/contact-consent`, { finderToken, body: { agree: true } })).status).toBe(200);
    // Polls bring it again as written...
    await expectEventually(async () => {
      const again = (await call<Message[]>('GET', `/items/${code}/messages`, { token: owner })).body;
      expect(again[0].content).toBe(WRITTEN);
    });
    // ...and so does the open stream: the message again, under its id.
    await expectEventually(() => expect(stream.messages.find((m) => m.id === written.body.message.id)?.content).toBe(WRITTEN));
    expect(stream.messageEvents.filter((m) => m.id === written.body.message.id).length).toBeGreaterThan(1);
  });
});
