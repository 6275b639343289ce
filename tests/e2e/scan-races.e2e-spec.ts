import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { InvitationAccepted, PublicItem, ScanHistory } from '@homing/contracts';
import { expectEventually, linkIn } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { apiCall, type ApiCaller } from '../support/api';
import { startStack, type Stack } from '../support/stack';

// A scan recorded while the item is being passed on. The scan read the item in its statement's snapshot (the previous
// owner, lost) and then waited on the item's row (its foreign key check) until the transfer committed: it was announced
// to the previous owner and kept after the transfer had deleted the scans of before, for the next owner to see. The
// test widens the window by holding items' outbox (a transfer writes its events there while it holds the item's row).
describe('scans racing a transfer', () => {
  const publicUrl = 'https://homing.e2e';
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' }, notifications: { PUBLIC_URL: publicUrl } } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);
  const scan = (code: string, address: string) => call('POST', `/items/${code}/scans`, { headers: { 'x-forwarded-for': address, 'user-agent': 'Mozilla/5.0 (iPhone) Mobile' } });
  const items = () => stack.schemaOf('items');

  async function person() {
    const email = `person-${randomUUID()}@example.test`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
    const { userId } = reply.json<{ userId: string }>();
    return { email, userId, token: testAccessToken({ id: userId, email }).token };
  }

  async function ownerWithItem() {
    const owner = await person();
    const created = await call<PublicItem>('POST', '/items', { token: owner.token, body: { name: 'Bike' } });
    expect(created.status).toBe(201);
    return { ...owner, code: created.body.code };
  }

  /** Holds items' outbox against writes while `work` runs; `until` says when the blocked statement is waiting. */
  async function withOutboxHeld<T>(work: () => Promise<T>): Promise<T> {
    await expectEventually(async () => {
      const { rows } = await stack.db.query<{ n: string }>(`SELECT count(*) AS n FROM "${items()}".outbox WHERE published_at IS NULL`);
      expect(Number(rows[0].n)).toBe(0);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const locker = new Client({ connectionString: stack.shared.DATABASE_URL });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE "${items()}".outbox IN SHARE MODE`);
    try {
      return await work();
    } finally {
      await locker.query('COMMIT');
      await locker.end();
    }
  }

  async function waitingOn(pattern: string, count = 1) {
    await expectEventually(async () => {
      const { rows } = await stack.db.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE $1 AND pid <> pg_backend_pid()`,
        [pattern],
      );
      expect(Number(rows[0].n)).toBeGreaterThanOrEqual(count);
    });
  }

  it('records a scan that waited on a transfer as the next owner’s: never announced to the previous owner, nor kept from before', async () => {
    const owner = await ownerWithItem();
    const next = await person();
    expect((await call('PATCH', `/user/items/${owner.code}`, { token: owner.token, body: { lost: true, lost_note: 'Call me' } })).status).toBe(200);
    expect((await call('POST', `/user/items/${owner.code}/transfer`, { token: owner.token, body: { email: next.email } })).status).toBe(201);
    const mail = await expectEventually(async () => {
      const found = stack.mail.mailsTo(next.email).find((candidate) => candidate.text.includes(`${publicUrl}/invite/`));
      expect(found).toBeDefined();
      return found!;
    });
    const token = new URL(linkIn(mail, `${publicUrl}/invite/`)).pathname.split('/').pop() as string;

    let accepted!: Promise<{ status: number; body: InvitationAccepted }>;
    let scans!: Promise<Array<{ status: number }>>;
    await withOutboxHeld(async () => {
      accepted = call<InvitationAccepted>('POST', `/invitations/${token}/accept`, { token: next.token });
      await waitingOn('%INSERT INTO outbox%');
      scans = Promise.all(['145.53.2.10', '145.53.2.11'].map((address) => scan(owner.code, address)));
      await waitingOn('%INSERT INTO scans%', 2);
    });
    expect((await accepted).status).toBe(200);
    expect((await scans).map((answer) => answer.status)).toEqual([204, 204]);

    // The scans waited for the transfer and then read the item as it is since: the next owner's, found (a transfer ends
    // lost mode). None was announced to the previous owner, and the next owner sees only these two, made after.
    const { rows: announced } = await stack.db.query<{ owner: string; scan: string }>(
      `SELECT envelope->'data'->>'ownerUserId' AS owner, envelope->'data'->>'scanId' AS scan FROM "${items()}".outbox WHERE subject = 'items.item.scanned.v1' AND envelope->'data'->>'code' = $1`,
      [owner.code.replace(/-/g, '')],
    );
    const history = await call<ScanHistory>('GET', `/user/items/${owner.code}/scans`, { token: next.token });
    expect(history.status).toBe(200);
    expect({ announcedToPreviousOwner: announced.filter((row) => row.owner === owner.userId).length, nextOwnerSees: history.body.scans.length }).toEqual({ announcedToPreviousOwner: 0, nextOwnerSees: 2 });
  });
});
