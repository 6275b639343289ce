import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { parseTagCode, type CreateMessageResponse, type HttpErrorBody, type Message, type PublicItem, type ScanHistory } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { apiCall, apiExchange, type ApiCaller } from '../support/api';
import { startStack, type Stack } from '../support/stack';

// Scans and the finder's location through the whole stack (issue 25): a finder page's visit is recorded with a city
// and a device kind but never the address; while the item is lost the owner is pushed at once and e-mailed at most
// every 15 minutes; a finder's place reaches the owner's thread as rounded as they chose, and nobody else.
describe('scans, scan alerts and the finder’s location', () => {
  // A public address in Arnhem (NL) in the offline database, as a trusted proxy (loopback) names it.
  const ARNHEM = '145.53.1.1';
  const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
  let stack: Stack;
  let redis: IORedis;
  let emailQueue: Queue;
  let pushQueue: Queue;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });
    redis = new IORedis(stack.shared.REDIS_URL ?? '', { maxRetriesPerRequest: null });
    emailQueue = new Queue('email', { connection: redis, prefix: `homing_${stack.namespace}` });
    pushQueue = new Queue('push', { connection: redis, prefix: `homing_${stack.namespace}` });
  });

  afterAll(async () => {
    await emailQueue?.close();
    await pushQueue?.close();
    redis?.disconnect();
    await stack?.stop();
  });

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);
  const settled = () =>
    expectEventually(async () => {
      expect(await emailQueue.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 0, active: 0, delayed: 0 });
      expect(await pushQueue.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 0, active: 0, delayed: 0 });
    });
  // The owner's language is Dutch; their welcome e-mail is not an alert.
  const alerts = (email: string) => stack.mail.mailsTo(email).filter((mail) => mail.subject === 'Het label van je kwijtgeraakte item is gescand');
  const from = (address: string, userAgent = PHONE) => ({ 'x-forwarded-for': address, 'user-agent': userAgent });
  const scan = (code: string, address: string, options: ApiCaller = {}) => call<HttpErrorBody | undefined>('POST', `/items/${code}/scans`, { ...options, headers: from(address) });

  /** An owner identity knows (so e-mails reach them), with a browser subscribed to pushes and an item messaging knows. */
  async function ownerWithItem() {
    const email = `owner-${randomUUID()}@example.test`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'nl' }), { timeout: 5000 });
    const { userId } = reply.json<{ userId: string }>();
    const { token } = testAccessToken({ id: userId, email });
    const created = await call<PublicItem>('POST', '/items', { token, body: { name: 'Rugzak' } });
    expect(created.status).toBe(201);
    const code = created.body.code;
    await expectEventually(async () => expect((await call('GET', `/user/items/${code}/unread-count`, { token })).status).toBe(200));
    const browser = stack.push.subscribe();
    expect((await call('POST', '/user/push/register', { token, body: browser })).status).toBe(204);
    return { email, token, code, browser };
  }

  it('alerts the owner of a lost item: a push per scan, one e-mail per 15 minutes; an item not lost tells nobody', async () => {
    const owner = await ownerWithItem();
    // Not lost: recorded, nobody told.
    expect((await scan(owner.code, '145.53.1.2')).status).toBe(204);
    await settled();

    expect((await call('PATCH', `/user/items/${owner.code}`, { token: owner.token, body: { lost: true, lost_note: 'Blauwe rugzak' } })).status).toBe(200);
    expect((await scan(owner.code, ARNHEM)).status).toBe(204);
    const [first] = await stack.push.waitForPushes(owner.browser);
    expect(first.payload).toMatchObject({ kind: 'scan-alert', url: `/item/${owner.code}`, city: 'Arnhem', country: 'NL' });
    await expectEventually(async () => expect(alerts(owner.email)).toHaveLength(1));
    expect(alerts(owner.email)[0].text).toContain('Arnhem');

    // A second scan within the quarter: another push, no second e-mail.
    expect((await scan(owner.code, '145.53.1.3')).status).toBe(204);
    await expectEventually(async () => expect(stack.push.pushesTo(owner.browser)).toHaveLength(2));
    await settled();
    expect(alerts(owner.email)).toHaveLength(1);
    expect(stack.push.pushesTo(owner.browser)).toHaveLength(2);

    // Found again: scans are recorded, and tell nobody.
    expect((await call('PATCH', `/user/items/${owner.code}`, { token: owner.token, body: { lost: false } })).status).toBe(200);
    expect((await scan(owner.code, '145.53.1.4')).status).toBe(204);
    await settled();
    expect(stack.push.pushesTo(owner.browser)).toHaveLength(2);
    expect((await call<ScanHistory>('GET', `/user/items/${owner.code}/scans`, { token: owner.token })).body.scans).toHaveLength(4);
  });

  it('lists the owner’s scans, newest first, with a city for a public address and no address at all', async () => {
    const owner = await ownerWithItem();
    expect((await scan(owner.code, '10.1.2.3')).status).toBe(204);
    expect((await call('POST', `/items/${owner.code}/scans`, { headers: from(ARNHEM, 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/124.0 Safari/537.36') })).status).toBe(204);
    // The owner's own visit is no scan.
    expect((await scan(owner.code, ARNHEM, { token: owner.token })).status).toBe(204);

    const history = await apiExchange<ScanHistory>(stack, 'GET', `/user/items/${owner.code}/scans`, { token: owner.token });
    expect(history.status).toBe(200);
    expect(history.body.scans.map(({ city, country, device_kind }) => ({ city, country, device_kind }))).toEqual([
      { city: 'Arnhem', country: 'NL', device_kind: 'desktop' },
      { city: null, country: null, device_kind: 'phone' },
    ]);
    for (const entry of history.body.scans) expect(Object.keys(entry).sort()).toEqual(['city', 'country', 'device_kind', 'scanned_at']);
    // Nothing stored anywhere holds the address.
    const { rows } = await stack.db.query(`SELECT row_to_json(s)::text AS row FROM "${stack.schemaOf('items')}".scans s WHERE item_code = $1`, [owner.code.replace(/-/g, '')]);
    expect(rows).toHaveLength(2);
    for (const { row } of rows) expect(row).not.toMatch(/145\.53|10\.1\.2\.3/);
    expect(JSON.stringify(await redis.keys(`${stack.namespace}:scans:*`))).not.toMatch(/145\.53|10\.1\.2\.3/);

    // Someone else's item, an unknown code: the same 404.
    expect((await call('GET', `/user/items/${owner.code}/scans`, { token: testAccessToken().token })).status).toBe(404);
    expect((await scan('ZZZZ-ZZZZ-ZZZZ-ZZZZ', '145.53.9.9')).status).toBe(404);
  });

  it('limits scans of one tag from one address', async () => {
    const owner = await ownerWithItem();
    for (let visit = 0; visit < 10; visit += 1) expect((await scan(owner.code, '145.53.7.7')).status).toBe(204);
    const refused = await apiExchange<HttpErrorBody>(stack, 'POST', `/items/${owner.code}/scans`, { headers: from('145.53.7.7') });
    expect({ status: refused.status, code: refused.body.response_code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await scan(owner.code, '145.53.7.8')).status).toBe(204);
  });

  it('counts the route’s own limit with a scan’s limits: 300 a minute from one address, whatever the tag, and a refused scan counts for no tag', async () => {
    const [owner, other] = await Promise.all([ownerWithItem(), ownerWithItem()]);
    const address = '145.53.6.6';
    const first = await apiExchange(stack, 'POST', `/items/${owner.code}/scans`, { headers: from(address) });
    expect(first.status).toBe(204);
    expect([first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual(['300', '299']);
    // 299 more of the tag: 9 recorded, then refused by the address's limit on the tag; the route counts every one.
    const statuses: number[] = [];
    for (let batch = 0; batch < 13; batch += 1) statuses.push(...(await Promise.all(Array.from({ length: 23 }, async () => (await scan(owner.code, address)).status))));
    expect([statuses.filter((status) => status === 204).length, statuses.filter((status) => status === 429).length]).toEqual([9, 290]);
    // The 301st, of another tag: refused by the route's limit, and counted for neither that tag nor the address on it.
    const refused = await apiExchange<HttpErrorBody>(stack, 'POST', `/items/${other.code}/scans`, { headers: from(address) });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 429, body: { response_code: 'RATE_LIMITED', message: 'Too many requests. Try again later.' } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(await redis.get(`${stack.namespace}:scans:${parseTagCode(other.code)}`))).toBe(0);
    expect((await scan(other.code, '145.53.6.7')).status).toBe(204);
    expect(Number(await redis.get(`${stack.namespace}:scans:${parseTagCode(other.code)}`))).toBe(1);
  });

  it('brings a finder’s place to the owner’s thread as rounded as they chose, and to nobody else', async () => {
    const owner = await ownerWithItem();
    const finder = await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { body: { content: 'Gevonden bij het station' } });
    const finderToken = finder.body.finder_token as string;
    const other = await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { body: { content: 'Ik ook?' } });

    const coarse = await call<{ message: Message }>('POST', `/items/${owner.code}/location`, { finderToken, body: { lat: 52.374031, lon: 4.88969, accuracy_m: 18.4, precise: false } });
    expect(coarse.status).toBe(201);
    expect(coarse.body.message).toMatchObject({ author: 'finder', content: '', location: { lat: 52.37, lon: 4.89, accuracy_m: 1000, precise: false } });
    const precise = await call<{ message: Message }>('POST', `/items/${owner.code}/location`, { finderToken, body: { lat: 52.374031, lon: 4.88969, accuracy_m: 18.4, precise: true } });
    expect(precise.body.message.location).toEqual({ lat: 52.37403, lon: 4.88969, accuracy_m: 18, precise: true });

    // Stored rounded: the coarse one has no more than two decimals.
    const { rows } = await stack.db.query(`SELECT location_lat::text AS lat, location_lon::text AS lon FROM "${stack.schemaOf('messaging')}".messages WHERE id = $1`, [coarse.body.message.id]);
    expect(rows).toEqual([{ lat: '52.37', lon: '4.89' }]);

    const ownerThread = await call<Message[]>('GET', `/items/${owner.code}/messages`, { token: owner.token });
    expect(ownerThread.body.filter((message) => message.location).map((message) => message.location)).toEqual([coarse.body.message.location, precise.body.message.location]);
    const otherThread = await call<Message[]>('GET', `/items/${owner.code}/messages`, { finderToken: other.body.finder_token });
    expect(otherThread.body.some((message) => message.location)).toBe(false);
    expect((await call('GET', `/items/${owner.code}/messages`)).status).toBe(403);

    // Only a finder, with their token, shares a place; a bad body changes nothing.
    expect((await call('POST', `/items/${owner.code}/location`, { body: { lat: 52, lon: 4, accuracy_m: 10, precise: false } })).status).toBe(403);
    expect((await call('POST', `/items/${owner.code}/location`, { token: owner.token, body: { lat: 52, lon: 4, accuracy_m: 10, precise: false } })).status).toBe(403);
    for (const body of [{ lat: 91, lon: 4, accuracy_m: 10, precise: false }, { lat: 52, lon: 4, accuracy_m: 10 }, { lat: '52', lon: 4, accuracy_m: 10, precise: false }]) {
      expect({ body, status: (await call('POST', `/items/${owner.code}/location`, { finderToken, body })).status }).toEqual({ body, status: 422 });
    }
    // A field the route does not take is the contract's 400.
    expect((await call('POST', `/items/${owner.code}/location`, { finderToken, body: { lat: 52, lon: 4, accuracy_m: 10, precise: false, note: 'x' } })).status).toBe(400);
    expect((await call<Message[]>('GET', `/items/${owner.code}/messages`, { token: owner.token })).body.filter((message) => message.location)).toHaveLength(2);
  });
});
