import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { parseTagCode, type CreateMessageResponse, type HandoverCode, type PublicItem } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { Client } from 'pg';
import { apiCall, ownerOfStack, type ApiCaller } from '../support/api';
import { blockedBehind } from '../support/database-locks';
import { startStack, type Stack } from '../support/stack';

// A finder's hand-over racing the item's transfer to a new owner. Messaging's hand-over counts the try on the item's
// `item_owners` row and then locks the conversation; the transfer consumer deleted the item's conversations and then
// dropped the item's hand-over key on that row: the other order, a deadlock (the hand-over answered 503, or the
// transfer was rolled back and the hand-over closed a conversation of the previous owner's). Here the transfer is held
// by a lock this test keeps (a temporary trigger after its deletion of conversations) while the hand-over comes.
describe('a hand-over racing a transfer of the item', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);
  const messaging = () => `"${stack.schemaOf('messaging')}"`;



  it('takes the item’s row before the conversations in both, so the hand-over waits for the transfer and finds its conversation gone', async () => {
    const owner = await ownerOfStack(stack, { password: false });
    const code = (await call<PublicItem>('POST', '/items', { token: owner.token, body: { name: 'Bike' } })).body.code;
    await expectEventually(async () => expect((await call('GET', `/user/items/${code}/unread-count`, { token: owner.token })).status).toBe(200));
    const first = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { body: { content: 'Found your bike' } });
    expect(first.status).toBe(201);
    const { body: today } = await call<HandoverCode>('GET', `/user/items/${code}/handover-code`, { token: owner.token });

    const key = randomInt(1, 2 ** 31);
    await stack.db.query(`CREATE FUNCTION ${messaging()}.test_hold_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock_shared(${key}); RETURN NULL; END $$`);
    await stack.db.query(`CREATE TRIGGER test_hold_deletions AFTER DELETE ON ${messaging()}.conversations FOR EACH STATEMENT EXECUTE FUNCTION ${messaging()}.test_hold_deletions()`);
    const holder = new Client({ connectionString: stack.shared.DATABASE_URL });
    await holder.connect();
    let locked = true;
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [key]);
      const [{ pid }] = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      // The transfer, as `items.rpc.invite` writes it and the next owner accepts it.
      const token = randomBytes(16).toString('base64url');
      await stack.db.query(
        `INSERT INTO ${stack.schemaOf('items')}.item_invitations (id, item_code, kind, email, token_hash, invited_by, expires_at)
         VALUES ($1, $2, 'transfer', $3, $4, $5, now() + interval '7 days')`,
        [randomUUID(), parseTagCode(code), `next-${randomUUID()}@example.test`, createHash('sha256').update(token).digest('base64url'), owner.userId],
      );
      expect((await call('POST', `/invitations/${token}/accept`, { token: (await ownerOfStack(stack, { password: false })).token })).status).toBe(200);
      // Messaging's transfer consumer has deleted the conversations and waits.
      await expectEventually(async () => expect(await blockedBehind(stack.db, pid)).toBeGreaterThanOrEqual(1));
      const handover = call('POST', `/items/${code}/handover`, { finderToken: first.body.finder_token, body: { code: today.code } });
      await expectEventually(async () => expect(await blockedBehind(stack.db, pid)).toBeGreaterThanOrEqual(2));
      await holder.query('SELECT pg_advisory_unlock($1)', [key]);
      locked = false;
      // The transfer went first: the finder's conversation went with it (403, as for a finder token of a reset one).
      expect((await handover).status).toBe(403);
      await expectEventually(async () =>
        expect((await stack.db.query(`SELECT count(*)::int AS n FROM ${messaging()}.conversations WHERE id = $1`, [first.body.message.conversation_id])).rows[0].n).toBe(0),
      );
    } finally {
      if (locked) await holder.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
      await holder.end();
      await stack.db.query(`DROP TRIGGER test_hold_deletions ON ${messaging()}.conversations`);
      await stack.db.query(`DROP FUNCTION ${messaging()}.test_hold_deletions()`);
    }
  });
});
