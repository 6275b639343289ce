import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { encodeTagCode, type HttpErrorBody, type PublicItem } from '@homing/contracts';
import { expectEventually, freePort, ServiceProcess, waitForEvent } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { startStack, type Stack } from '../support/stack';

const NOT_FOUND = { response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' };

// An owner managing their items, through the gateway, with the whole stack running. Items starts with rewards on;
// the last tests restart it with rewards off.
describe('the owner’s items', () => {
  let stack: Stack;
  let api: string;
  let db: Client;
  const itemsTable = () => `"${stack.schemaOf('items')}".items`;

  beforeAll(async () => {
    stack = await startStack({ env: { items: { REWARDS_ENABLED: 'true' } } });
    ({ api, db } = stack);
  });

  afterAll(() => stack?.stop());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const call = (method: string, path: string, token: string, body?: unknown) =>
    fetch(`${api}${path}`, {
      method,
      headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  const createItem = async (token: string, name: string): Promise<PublicItem> => {
    const response = await call('POST', '/items', token, { name });
    expect(response.status).toBe(201);
    return (await response.json()) as PublicItem;
  };
  const statusAndBody = async (response: Response) => ({ status: response.status, body: response.status === 204 ? null : await response.json() });

  describe('listing', () => {
    it('lists only the caller’s items, newest first, in pages', async () => {
      const owner = testAccessToken();
      const someoneElse = testAccessToken();
      const first = await createItem(owner.token, 'Keys');
      await createItem(someoneElse.token, 'Not yours');
      const second = await createItem(owner.token, 'Wallet');
      const third = await createItem(owner.token, 'Umbrella');

      const all = (await (await call('GET', '/user/items', owner.token)).json()) as PublicItem[];
      expect(all.map((item) => item.code)).toEqual([third.code, second.code, first.code]);
      expect(all[0]).toMatchObject({ name: 'Umbrella', is_owner: true, user_id: owner.userId, activated: true });

      const page1 = (await (await call('GET', '/user/items?limit=2', owner.token)).json()) as PublicItem[];
      const page2 = (await (await call('GET', '/user/items?limit=2&offset=2', owner.token)).json()) as PublicItem[];
      expect([...page1, ...page2].map((item) => item.code)).toEqual(all.map((item) => item.code));
      expect(await (await call('GET', '/user/items?offset=3', owner.token)).json()).toEqual([]);
    });

    it('orders items claimed at the same moment by code, so pages never overlap', async () => {
      const owner = testAccessToken();
      const codes = [1, 2, 3].map(() => encodeTagCode(randomBytes(10)));
      await db.query(`INSERT INTO ${itemsTable()} (code, name, owner_user_id, claimed_at, version) SELECT unnest($1::char(16)[]), 'same', $2, '2026-01-01T00:00:00Z', 1`, [codes, owner.userId]);
      const pages = [];
      for (const offset of [0, 1, 2]) pages.push(...((await (await call('GET', `/user/items?limit=1&offset=${offset}`, owner.token)).json()) as PublicItem[]));
      expect(pages.map((item) => item.code.replace(/-/g, ''))).toEqual([...codes].sort());
    });

    it('defaults the page to 50 and caps it at 100', async () => {
      const owner = testAccessToken();
      await db.query(
        `INSERT INTO ${itemsTable()} (code, name, owner_user_id, claimed_at, version)
         SELECT upper(substr(md5(random()::text || n), 1, 16)), 'bulk ' || n, $1, now() - n * interval '1 second', 1 FROM generate_series(1, 120) AS n`,
        [owner.userId],
      );
      const count = async (query: string) => ((await (await call('GET', `/user/items${query}`, owner.token)).json()) as PublicItem[]).length;
      expect(await count('')).toBe(50);
      // The spec's client sends limit=0 for "the default".
      expect(await count('?limit=0&offset=0')).toBe(50);
      expect(await count('?limit=100')).toBe(100);
      expect(await count('?limit=1000')).toBe(100);
      expect(await count('?limit=100&offset=100')).toBe(20);
    });

    it.each([['limit=-1', 'limit'], ['limit=abc', 'limit'], ['limit=1.5', 'limit'], ['limit=1e3', 'limit'], ['offset=-5', 'offset'], ['limit=1&limit=2', 'limit']])(
      'refuses %s with a validation error',
      async (query, field) => {
        const response = await call('GET', `/user/items?${query}`, testAccessToken().token);
        expect(await statusAndBody(response)).toEqual({
          status: 422,
          body: { response_code: 'VALIDATION_ERROR', message: 'Input data contains errors.', validation: { [field]: 'invalid' } },
        });
      },
    );

    it('needs a logged-in caller', async () => {
      const response = await fetch(`${api}/user/items`);
      expect(response.status).toBe(401);
    });
  });

  describe('one item', () => {
    it('shows the owner their item, typed any way, and anyone else the same 404 as a missing item', async () => {
      const owner = testAccessToken();
      const item = await createItem(owner.token, 'Bike');
      const own = await call('GET', `/user/items/${item.code.toLowerCase().replace(/-/g, '')}`, owner.token);
      expect(await statusAndBody(own)).toEqual({ status: 200, body: { ...item } });

      const answers = await Promise.all([
        call('GET', `/user/items/${item.code}`, testAccessToken().token),
        call('GET', '/user/items/ZZZZ-ZZZZ-ZZZZ-ZZZZ', owner.token),
        call('GET', '/user/items/not-a-code', owner.token),
      ]);
      for (const answer of answers) expect(await statusAndBody(answer)).toEqual({ status: 404, body: NOT_FOUND });
    });

    it('never shows another person’s user id or e-mail on the public scan', async () => {
      const owner = testAccessToken({ email: `owner-${randomUUID()}@example.test` });
      const item = await createItem(owner.token, 'Laptop');
      for (const headers of [{}, bearer(testAccessToken().token)]) {
        const response = await fetch(`${api}/items/${item.code}`, { headers });
        const text = await response.text();
        expect(response.status).toBe(200);
        expect(JSON.parse(text)).toEqual({ code: item.code, name: 'Laptop', claimed_at: item.claimed_at, activated: true, is_owner: false, lost: false, relay_address: `tag-${item.code.replace(/-/g, '').toLowerCase()}@relay.localhost` });
        expect(text).not.toContain(owner.userId);
        expect(text).not.toContain('owner-');
      }
    });
  });

  describe('changes', () => {
    it('renames an item (trimmed) and sets a reward in cents, which the finder then sees', async () => {
      const owner = testAccessToken();
      const item = await createItem(owner.token, 'Bag');
      const renamed = await call('PATCH', `/user/items/${item.code}`, owner.token, { name: '  Black bag  ' });
      expect(await statusAndBody(renamed)).toEqual({ status: 200, body: { ...item, name: 'Black bag' } });
      const rewarded = await call('PATCH', `/user/items/${item.code}`, owner.token, { reward: 2500 });
      expect(await statusAndBody(rewarded)).toEqual({ status: 200, body: { ...item, name: 'Black bag', reward: 2500 } });
      const scanned = (await (await fetch(`${api}/items/${item.code}`)).json()) as PublicItem;
      expect(scanned).toMatchObject({ name: 'Black bag', reward: 2500 });
    });

    it('refuses bad changes with the contract’s errors, changing nothing', async () => {
      const owner = testAccessToken();
      const item = await createItem(owner.token, 'Scarf');
      const cases: Array<[string, unknown, number, Record<string, string> | undefined]> = [
        ['an empty name', { name: '   ' }, 422, { name: 'required' }],
        ['a null name', { name: null }, 422, { name: 'required' }],
        ['a 101-character name', { name: 'x'.repeat(101) }, 422, { name: 'max=100' }],
        ['a line break in the name', { name: 'a\nb' }, 422, { name: 'invalid' }],
        ['a negative reward', { reward: -1 }, 422, { reward: 'min=0' }],
        ['a reward with cents as a fraction', { reward: 12.5 }, 422, { reward: 'invalid' }],
        ['a reward as a string', { reward: '100' }, 422, { reward: 'invalid' }],
        ['an absurd reward', { reward: 1e12 }, 422, { reward: 'max=10000000' }],
        ['another field', { name: 'x', user_id: randomUUID() }, 400, undefined],
        ['an array', [], 400, undefined],
      ];
      for (const [name, body, status, validation] of cases) {
        const response = await call('PATCH', `/user/items/${item.code}`, owner.token, body);
        const answer = (await response.json()) as HttpErrorBody;
        expect({ name, status: response.status, validation: answer.validation }).toEqual({ name, status, validation });
      }
      const { rows } = await db.query(`SELECT name, reward_cents, version FROM ${itemsTable()} WHERE code = $1`, [item.code.replace(/-/g, '')]);
      expect(rows[0]).toEqual({ name: 'Scarf', reward_cents: null, version: 1 });
    });

    it('lets nobody but the owner change or delete an item, answering them as for a missing one', async () => {
      const owner = testAccessToken();
      const item = await createItem(owner.token, 'Phone');
      const intruder = testAccessToken().token;
      expect(await statusAndBody(await call('PATCH', `/user/items/${item.code}`, intruder, { name: 'Mine now' }))).toEqual({ status: 404, body: NOT_FOUND });
      expect(await statusAndBody(await call('DELETE', `/user/items/${item.code}`, intruder))).toEqual({ status: 404, body: NOT_FOUND });
      expect(await statusAndBody(await call('PATCH', '/user/items/ZZZZ-ZZZZ-ZZZZ-ZZZZ', owner.token, { name: 'x' }))).toEqual({ status: 404, body: NOT_FOUND });
      expect(await statusAndBody(await call('DELETE', '/user/items/not-a-code', owner.token))).toEqual({ status: 404, body: NOT_FOUND });
      expect(((await (await call('GET', `/user/items/${item.code}`, owner.token)).json()) as PublicItem).name).toBe('Phone');
    });

    it('publishes each change with a rising version; messaging keeps a tombstone of the deleted item', async () => {
      const owner = testAccessToken();
      const item = await createItem(owner.token, 'Guitar');
      const code = item.code.replace(/-/g, '');
      const updated = waitForEvent(stack.nc, stack.namespace, 'items.item.updated.v1', (event) => event.data.code === code);
      expect((await call('PATCH', `/user/items/${item.code}`, owner.token, { name: 'Blue guitar', reward: 1000 })).status).toBe(200);
      expect(await updated).toMatchObject({ aggregateId: code, version: 2, data: { code, name: 'Blue guitar', rewardCents: 1000 } });

      const deleted = waitForEvent(stack.nc, stack.namespace, 'items.item.deleted.v1', (event) => event.data.code === code);
      expect(await statusAndBody(await call('DELETE', `/user/items/${item.code}`, owner.token))).toEqual({ status: 204, body: null });
      expect(await deleted).toMatchObject({ aggregateId: code, version: 3, data: { code } });

      // The tag is gone for everyone, the owner included.
      expect(await statusAndBody(await fetch(`${api}/items/${item.code}`))).toEqual({ status: 404, body: NOT_FOUND });
      expect(await statusAndBody(await call('GET', `/user/items/${item.code}`, owner.token))).toEqual({ status: 404, body: NOT_FOUND });
      expect(await statusAndBody(await call('DELETE', `/user/items/${item.code}`, owner.token))).toEqual({ status: 404, body: NOT_FOUND });
      await expectEventually(async () => {
        const { rows } = await db.query(`SELECT version, deleted_at FROM "${stack.schemaOf('messaging')}".item_owners WHERE item_code = $1`, [code]);
        expect(rows[0]).toEqual({ version: 3, deleted_at: expect.any(Date) });
      });
    });

    it('treats an empty change as no change: no new version', async () => {
      const owner = testAccessToken();
      const item = await createItem(owner.token, 'Hat');
      expect(await statusAndBody(await call('PATCH', `/user/items/${item.code}`, owner.token, {}))).toEqual({ status: 200, body: item });
      const { rows } = await db.query(`SELECT version FROM ${itemsTable()} WHERE code = $1`, [item.code.replace(/-/g, '')]);
      expect(rows[0].version).toBe(1);
    });
  });

  describe('with rewards disabled', () => {
    let rewarded: PublicItem;
    let owner: { token: string; userId: string };

    beforeAll(async () => {
      owner = testAccessToken();
      rewarded = await createItem(owner.token, 'Watch');
      expect((await call('PATCH', `/user/items/${rewarded.code}`, owner.token, { reward: 5000 })).status).toBe(200);
      // Items as it runs by default: REWARDS_ENABLED unset.
      const running = stack.services.get('items')!;
      await running.stop();
      const { REWARDS_ENABLED: _enabled, ...defaults } = stack.envOf('items');
      const restarted = new ServiceProcess('items', await freePort(), defaults);
      stack.services.set('items', restarted);
      await restarted.start();
    });

    it('refuses a positive reward with a validation error on the field, and takes the spec\'s {name, reward: 0}', async () => {
      const refused = await call('PATCH', `/user/items/${rewarded.code}`, owner.token, { name: 'Gold watch', reward: 100 });
      expect(await statusAndBody(refused)).toEqual({
        status: 422,
        body: { response_code: 'VALIDATION_ERROR', message: 'Rewards are not enabled.', validation: { reward: 'invalid' } },
      });
      // The spec's client always sends a reward; with rewards off it is 0 and changes nothing.
      const renamed = await call('PATCH', `/user/items/${rewarded.code}`, owner.token, { name: 'Gold watch', reward: 0 });
      expect(renamed.status).toBe(200);
      expect(((await renamed.json()) as PublicItem).name).toBe('Gold watch');
    });

    it('shows a stored reward nowhere', async () => {
      const answers = [
        await (await call('GET', '/user/items', owner.token)).json(),
        await (await call('GET', `/user/items/${rewarded.code}`, owner.token)).json(),
        await (await fetch(`${api}/items/${rewarded.code}`)).json(),
        await (await call('PATCH', `/user/items/${rewarded.code}`, owner.token, { name: 'Watch' })).json(),
      ];
      expect(answers).toHaveLength(4);
      for (const answer of answers) expect(JSON.stringify(answer)).not.toContain('reward');
    });
  });
});
