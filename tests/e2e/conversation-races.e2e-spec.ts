import { randomUUID } from 'node:crypto';
import type { CreateMessageResponse, FinderTokenResponse, HandoverCode, HttpErrorBody, Message } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { apiCall, ownedItem, type ApiCaller } from '../support/api';
import { EventStreamClient } from '../support/event-stream-client';
import { startStack, type Stack } from '../support/stack';

// A conversation changing under a request: a finder's "forget me" racing their own writes in another tab or device, a
// resume link opened while they leave, and a retry (same Idempotency-Key) after the conversation closed or its finder
// left, and a message whose transaction was slow committing after one of a higher id. Each failed before messaging decided in the write itself (a message, an address or a token landing in a
// conversation forgotten meanwhile; a retry told 409 although its message was in).
describe('a conversation changing under a request', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  const call = <T = HttpErrorBody>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);
  const messaging = (table: string) => `"${stack.schemaOf('messaging')}".${table}`;

  async function mintResumeToken(conversationId: string): Promise<string> {
    const reply = await stack.nc.request(`${stack.namespace}.messaging.rpc.get-finder-contact`, JSON.stringify({ conversationId, resumeLink: true }), { timeout: 5000 });
    return reply.json<{ resumeToken: string }>().resumeToken;
  }

  it('leaves no finder message nor address in a conversation the finder deleted, whatever a concurrent write answered', async () => {
    const leftovers: Array<{ conversationId: string; post: number; setFinder: number; forget: number; messages: number; email: string | null }> = [];
    for (let item = 0; item < 6; item++) {
      const { code } = await ownedItem(stack);
      // 20 messages an hour per address per tag: 2 per trial.
      for (let i = 0; i < 9; i++) {
        const first = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your keys' } });
        expect(first.status).toBe(201);
        const finderToken = first.body.finder_token!;
        const conversationId = first.body.message.conversation_id;
        const [post, setFinder, forget] = await Promise.all([
          call('POST', `/items/${code}/messages`, { finderToken, body: { content: `second ${randomUUID()}` } }),
          call('POST', `/items/${code}/set-finder`, { finderToken, body: { email: `finder-${randomUUID()}@example.test` } }),
          call('DELETE', `/items/${code}/conversation`, { finderToken }),
        ]);
        expect(forget.status).toBe(204);
        const [row] = (await stack.db.query(`SELECT finder_email, finder_left_at FROM ${messaging('conversations')} WHERE id = $1`, [conversationId])).rows;
        const messages = (await stack.db.query(`SELECT count(*)::int AS n FROM ${messaging('messages')} WHERE conversation_id = $1 AND author = 'finder'`, [conversationId])).rows[0].n;
        if (row.finder_left_at && (messages > 0 || row.finder_email !== null)) {
          leftovers.push({ conversationId, post: post.status, setFinder: setFinder.status, forget: forget.status, messages, email: row.finder_email });
        }
      }
    }
    expect(leftovers).toEqual([]);
  }, 300_000);

  it('gives no token that still opens a conversation its finder deleted', async () => {
    const stale: Array<{ conversationId: string; read: number; write: number; writtenInto?: string; tokensLeft: number }> = [];
    for (let item = 0; item < 4; item++) {
      const { code, token: owner } = await ownedItem(stack);
      // 20 messages an hour per address and tag, up to 4 per trial; 20 resume calls a minute.
      for (let i = 0; i < 4; i++) {
        const first = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your keys' } });
        expect(first.status).toBe(201);
        const finderToken = first.body.finder_token!;
        const conversationId = first.body.message.conversation_id;
        expect((await call('POST', `/items/${code}/set-finder`, { finderToken, body: { email: `finder-${randomUUID()}@example.test` } })).status).toBe(200);
        expect((await call('POST', `/items/${code}/messages`, { token: owner, body: { content: `Reply ${i}`, conversation_id: conversationId } })).status).toBe(201);
        const resumeToken = await mintResumeToken(conversationId);
        const [resume, forget] = await Promise.all([
          call<FinderTokenResponse & HttpErrorBody>('POST', `/items/${code}/finder-resume`, { body: { token: resumeToken } }),
          call('DELETE', `/items/${code}/conversation`, { finderToken }),
        ]);
        expect(forget.status).toBe(204);
        if (resume.status !== 200) continue;
        const newToken = resume.body.finder_token;
        const read = await call<Message[] & HttpErrorBody>('GET', `/items/${code}/messages`, { finderToken: newToken });
        const write = await call<CreateMessageResponse & HttpErrorBody>('POST', `/items/${code}/messages`, { finderToken: newToken, body: { content: 'still here?' } });
        const tokensLeft = (await stack.db.query(`SELECT count(*)::int AS n FROM ${messaging('finder_tokens')} WHERE conversation_id = $1`, [conversationId])).rows[0].n;
        if (read.status === 200 || write.body.message?.conversation_id === conversationId || tokensLeft > 0) {
          stale.push({ conversationId, read: read.status, write: write.status, writtenInto: write.body.message?.conversation_id, tokensLeft });
        }
      }
    }
    expect(stale).toEqual([]);
  }, 300_000);

  // Control: one after the other, both orders are right (so the failure above is the race alone).
  it('control: sequential resume then forget, and forget then resume, leave no working token', async () => {
    const { code, token: owner } = await ownedItem(stack);
    for (const order of ['resume-first', 'forget-first'] as const) {
      const first = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your keys' } });
      const finderToken = first.body.finder_token!;
      const conversationId = first.body.message.conversation_id;
      expect((await call('POST', `/items/${code}/set-finder`, { finderToken, body: { email: `finder-${randomUUID()}@example.test` } })).status).toBe(200);
      expect((await call('POST', `/items/${code}/messages`, { token: owner, body: { content: 'Reply', conversation_id: conversationId } })).status).toBe(201);
      const resumeToken = await mintResumeToken(conversationId);
      let resume: { status: number; body: FinderTokenResponse & HttpErrorBody };
      if (order === 'resume-first') {
        resume = await call<FinderTokenResponse & HttpErrorBody>('POST', `/items/${code}/finder-resume`, { body: { token: resumeToken } });
        expect(resume.status).toBe(200);
        expect((await call('DELETE', `/items/${code}/conversation`, { finderToken })).status).toBe(204);
        expect((await call('GET', `/items/${code}/messages`, { finderToken: resume.body.finder_token })).status).toBe(403);
      } else {
        expect((await call('DELETE', `/items/${code}/conversation`, { finderToken })).status).toBe(204);
        resume = await call<FinderTokenResponse & HttpErrorBody>('POST', `/items/${code}/finder-resume`, { body: { token: resumeToken } });
        expect(resume.status).toBe(422);
      }
    }
  });

  it('the owner’s retried reply gets its first answer after the finder left', async () => {
    const { code, token: owner } = await ownedItem(stack);
    const first = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your keys' } });
    const idempotencyKey = randomUUID();
    const reply = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { token: owner, idempotencyKey, body: { content: 'Thanks!' } });
    expect(reply.status).toBe(201);
    expect((await call('DELETE', `/items/${code}/conversation`, { finderToken: first.body.finder_token })).status).toBe(204);
    const retry = await call<CreateMessageResponse & HttpErrorBody>('POST', `/items/${code}/messages`, { token: owner, idempotencyKey, body: { content: 'Thanks!' } });
    expect({ status: retry.status, body: retry.body }).toEqual({ status: 201, body: reply.body });
  });

  it('the finder’s retried message gets its first answer after the hand-over closed the conversation', async () => {
    const { code, token: owner } = await ownedItem(stack);
    const first = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your keys' } });
    const finderToken = first.body.finder_token!;
    const idempotencyKey = randomUUID();
    const message = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { finderToken, idempotencyKey, body: { content: 'On my way' } });
    expect(message.status).toBe(201);
    const { body: today } = await call<HandoverCode>('GET', `/user/items/${code}/handover-code`, { token: owner });
    expect((await call('POST', `/items/${code}/handover`, { finderToken, body: { code: today.code } })).status).toBe(200);
    const retry = await call<CreateMessageResponse & HttpErrorBody>('POST', `/items/${code}/messages`, { finderToken, idempotencyKey, body: { content: 'On my way' } });
    expect({ status: retry.status, body: retry.body }).toEqual({ status: 201, body: message.body });
  });

  it('shows a message whose transaction was slow, after one of a higher id, on the owner’s stream and next after= poll', async () => {
    const { code, token: owner } = await ownedItem(stack);
    const a = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'finder A' } });
    const b = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'finder B' } });
    const opened = await EventStreamClient.open(`${stack.api}/items/${code}/messages/stream`, { token: owner });
    expect(opened.status).toBe(200);
    const stream = opened.stream!;
    try {
      // The owner's page has read everything so far.
      let after = Math.max(...(await call<Message[]>('GET', `/items/${code}/messages`, { token: owner })).body.map((m) => m.version));

      // Finder A's conversation row is busy for a moment (a concurrent transaction on it).
      await stack.db.query('BEGIN');
      await stack.db.query(`SELECT 1 FROM "${stack.schemaOf('messaging')}".conversations WHERE id = $1 FOR UPDATE`, [a.body.message.conversation_id]);
      const slow = call<CreateMessageResponse>('POST', `/items/${code}/messages`, { finderToken: a.body.finder_token, body: { content: 'A: slow one' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const fast = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { finderToken: b.body.finder_token, body: { content: 'B: fast one' } });
      expect(fast.status).toBe(201);
      await expectEventually(() => expect(stream.messages.map((m) => m.id)).toContain(fast.body.message.id));
      for (const m of (await call<Message[]>('GET', `/items/${code}/messages?after=${after}`, { token: owner })).body) after = Math.max(after, m.version);
      await stack.db.query('COMMIT');
      const slowAnswer = await slow;
      expect(slowAnswer.status).toBe(201);
      // Its id is drawn once its conversation's row is free: after the fast one's, so readers going by ids see it.

      // Later activity: another message, so the stream fetches again and the page polls again.
      const later = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { finderToken: b.body.finder_token, body: { content: 'B: later' } });
      await expectEventually(() => expect(stream.messages.map((m) => m.id)).toContain(later.body.message.id));
      const polled = (await call<Message[]>('GET', `/items/${code}/messages?after=${after}`, { token: owner })).body.map((m) => m.id);
      expect({ streamed: stream.messages.map((m) => m.id).includes(slowAnswer.body.message.id), polled: polled.includes(slowAnswer.body.message.id) }).toEqual({ streamed: true, polled: true });
    } finally {
      stream.close();
    }
  });
});
