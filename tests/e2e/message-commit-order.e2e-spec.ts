import { randomInt } from 'node:crypto';
import type { CreateMessageResponse, Message } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { Client } from 'pg';
import { apiCall, ownedItem, type ApiCaller } from '../support/api';
import { blockedBehind } from '../support/database-locks';
import { startStack, type Stack } from '../support/stack';

// An owner's thread spans every conversation of the item, and readers follow it with `after=<highest version seen>`.
// A message or a receipt change whose transaction drew its number (the message id sequence) and then committed after
// one of a higher number in another conversation of the item was never shown to a reader whose cursor had passed it.
// Here the first transaction is held between its write and its commit by a lock this test keeps (a temporary trigger
// on messaging's outbox, for that conversation's event only), while the other conversation writes and the owner polls.
// (Nothing else records such an event meanwhile: the owner has no push subscription and is e-mailed after 10 minutes,
// and the finders left no address, so no delivery receipt comes.)
describe('an item’s thread in commit order across its conversations', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);
  const schema = () => `"${stack.schemaOf('messaging')}"`;


  /**
   * Runs `held` with messaging's outbox insert of `subject` for `conversationId` waiting on a lock this test keeps;
   * `meanwhile` runs once it waits, then the lock is let go and `held`'s answer awaited.
   */
  async function withHeldEvent(
    subject: string,
    conversationId: string,
    held: () => Promise<{ status: number }>,
    meanwhile: (holderPid: number) => Promise<void>,
  ): Promise<{ status: number }> {
    const key = randomInt(1, 2 ** 31);
    await stack.db.query(`CREATE FUNCTION ${schema()}.test_hold_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.subject = '${subject}' AND strpos(NEW.envelope::text, '${conversationId}') > 0 THEN PERFORM pg_advisory_xact_lock_shared(${key}); END IF;
        RETURN NEW;
      END $$`);
    await stack.db.query(`CREATE TRIGGER test_hold_outbox BEFORE INSERT ON ${schema()}.outbox FOR EACH ROW EXECUTE FUNCTION ${schema()}.test_hold_outbox()`);
    const holder = new Client({ connectionString: stack.shared.DATABASE_URL });
    await holder.connect();
    let locked = true;
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [key]);
      const [{ pid }] = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      const answer = held();
      await expectEventually(async () => expect(await blockedBehind(stack.db, pid)).toBeGreaterThanOrEqual(1));
      await meanwhile(pid);
      await holder.query('SELECT pg_advisory_unlock($1)', [key]);
      locked = false;
      return await answer;
    } finally {
      if (locked) await holder.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
      await holder.end();
      await stack.db.query(`DROP TRIGGER test_hold_outbox ON ${schema()}.outbox`);
      await stack.db.query(`DROP FUNCTION ${schema()}.test_hold_outbox()`);
    }
  }

  /**
   * Another conversation's message, posted while the held transaction waits: it either commits at once or waits its
   * turn behind the held one; either way the owner polls from their cursor before the held one commits.
   */
  async function postAndPollMeanwhile(
    code: string,
    finderToken: string,
    owner: string,
    cursor: { after: number; seen: number[] },
    holderPid: number,
  ): Promise<{ posted: Promise<{ status: number; body: CreateMessageResponse }>; drawnWhileWaiting?: number }> {
    let settled = false;
    const posted = call<CreateMessageResponse>('POST', `/items/${code}/messages`, { finderToken, body: { content: 'B: committed first' } }).finally(() => {
      settled = true;
    });
    await expectEventually(async () => expect(settled || (await blockedBehind(stack.db, holderPid, 'INSERT INTO messages')) >= 1).toBe(true));
    // Waiting, it must not hold an id yet: one drawn now is lower than the one it gets.
    const drawnWhileWaiting = settled
      ? undefined
      : Number((await stack.db.query<{ n: string }>(`SELECT nextval(pg_get_serial_sequence('${schema()}.messages', 'id')) AS n`)).rows[0].n);
    poll(cursor, (await call<Message[]>('GET', `/items/${code}/messages?after=${cursor.after}`, { token: owner })).body);
    // Not awaited here: it may be waiting for the held transaction, which commits only once the caller lets it.
    return { posted, drawnWhileWaiting };
  }

  function poll(cursor: { after: number; seen: number[] }, messages: Message[]): void {
    for (const message of messages) {
      cursor.after = Math.max(cursor.after, message.version);
      cursor.seen.push(message.id);
    }
  }

  it('brings the owner’s next after= poll a message that committed after a higher id of another conversation', async () => {
    const { code, token: owner } = await ownedItem(stack);
    const a = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'finder A' } });
    const b = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'finder B' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    const cursor = { after: 0, seen: [] as number[] };
    poll(cursor, (await call<Message[]>('GET', `/items/${code}/messages`, { token: owner })).body);

    let meanwhile: Awaited<ReturnType<typeof postAndPollMeanwhile>> | undefined;
    const slow = (await withHeldEvent(
      'messaging.message.created.v1',
      a.body.message.conversation_id,
      () => call<CreateMessageResponse>('POST', `/items/${code}/messages`, { finderToken: a.body.finder_token, body: { content: 'A: slow to commit' } }),
      async (holderPid) => {
        meanwhile = await postAndPollMeanwhile(code, b.body.finder_token!, owner, cursor, holderPid);
      },
    )) as { status: number; body: CreateMessageResponse };
    const fast = await meanwhile!.posted;
    expect([slow.status, fast.status]).toEqual([201, 201]);
    poll(cursor, (await call<Message[]>('GET', `/items/${code}/messages?after=${cursor.after}`, { token: owner })).body);

    expect({ slow: cursor.seen.includes(slow.body.message.id), fast: cursor.seen.includes(fast.body.message.id) }).toEqual({ slow: true, fast: true });
    expect(fast.body.message.id).toBeGreaterThan(meanwhile!.drawnWhileWaiting ?? 0);
  });

  it('brings the owner’s next after= poll a receipt that committed after a higher id of another conversation', async () => {
    const { code, token: owner } = await ownedItem(stack);
    const a = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'finder A' } });
    const b = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'finder B' } });
    const reply = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { token: owner, body: { content: 'Thanks, A', conversation_id: a.body.message.conversation_id } });
    expect([a.status, b.status, reply.status]).toEqual([201, 201, 201]);
    const cursor = { after: 0, seen: [] as number[] };
    poll(cursor, (await call<Message[]>('GET', `/items/${code}/messages`, { token: owner })).body);

    // Finder A opens their conversation: the reply is read by them, a receipt change held before its commit.
    let meanwhile: Awaited<ReturnType<typeof postAndPollMeanwhile>> | undefined;
    const read = await withHeldEvent(
      'messaging.messages.receipts.v1',
      a.body.message.conversation_id,
      () => call<Message[]>('GET', `/items/${code}/messages`, { finderToken: a.body.finder_token }),
      async (holderPid) => {
        meanwhile = await postAndPollMeanwhile(code, b.body.finder_token!, owner, cursor, holderPid);
      },
    );
    expect([read.status, (await meanwhile!.posted).status]).toEqual([200, 201]);
    const next = (await call<Message[]>('GET', `/items/${code}/messages?after=${cursor.after}`, { token: owner })).body;

    expect(next.filter((message) => message.id === reply.body.message.id).map((message) => message.read_at !== null)).toEqual([true]);
  });

  it('brings the owner’s next after= poll the messages a completed contact consent re-stamped, after a higher id of another conversation', async () => {
    const { code, token: owner } = await ownedItem(stack);
    const a = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'finder A' } });
    const b = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'finder B' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    const conversationId = a.body.message.conversation_id;
    expect((await call('POST', `/items/${code}/contact-consent`, { token: owner, body: { agree: true, conversation_id: conversationId } })).status).toBe(200);
    const cursor = { after: 0, seen: [] as number[] };
    poll(cursor, (await call<Message[]>('GET', `/items/${code}/messages`, { token: owner })).body);

    // Finder A agrees too: their conversation's messages are re-stamped (shown unmasked), held before the commit.
    let meanwhile: Awaited<ReturnType<typeof postAndPollMeanwhile>> | undefined;
    const consent = await withHeldEvent(
      'messaging.messages.receipts.v1',
      conversationId,
      () => call('POST', `/items/${code}/contact-consent`, { finderToken: a.body.finder_token, body: { agree: true } }),
      async (holderPid) => {
        meanwhile = await postAndPollMeanwhile(code, b.body.finder_token!, owner, cursor, holderPid);
      },
    );
    expect([consent.status, (await meanwhile!.posted).status]).toEqual([200, 201]);
    const next = (await call<Message[]>('GET', `/items/${code}/messages?after=${cursor.after}`, { token: owner })).body;

    expect(next.map((message) => message.id)).toContain(a.body.message.id);
  });
});
