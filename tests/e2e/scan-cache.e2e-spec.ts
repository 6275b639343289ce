import sharp from 'sharp';
import type { PhotoUrls, PublicItem } from '@homing/contracts';
import { expectEventually, freePort, runServiceCommand, ServiceProcess } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { rpcCallsDuring, startStack, type Stack } from '../support/stack';

// A replica's cache keeps an entry for 5 minutes (public-item-cache.ts's TTL) unless an event tells it otherwise, so a
// change seen within this window was told by items' event. How fast that is, is for the benchmarks, not for a test.
const EVENT_WINDOW_MS = 10_000;

// Tag scans answered from each gateway's memory, kept current by items' events: a second gateway replica scans,
// while every change goes through the stack's own gateway (so only the event can tell the second one).
describe('tag scans from the gateway’s cache', () => {
  let stack: Stack;
  let replica: ServiceProcess;
  let replicaApi: string;
  let replicaBase: string;
  let replicaPublicUrl: string;
  let seeded: string[];
  const owner = testAccessToken();

  beforeAll(async () => {
    stack = await startStack({
      beforeStart: async ({ envOf }) => {
        seeded = (await runServiceCommand('items', ['seed-tags', '--count', '1'], envOf('items'))).trim().split('\n');
      },
    });
    const port = await freePort();
    replicaPublicUrl = `http://localhost:${port}`;
    replica = new ServiceProcess('gateway', port, { ...stack.shared, WEB_DIST: 'dist/apps/web', PUBLIC_URL: replicaPublicUrl });
    await replica.start();
    replicaBase = `http://127.0.0.1:${port}`;
    replicaApi = `${replicaBase}/api/v1`;
  });

  afterAll(async () => {
    await replica?.stop();
    await stack?.stop();
  });

  const headersOf = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
  const scan = async (code: string, token?: string, api = replicaApi) => {
    const response = await fetch(`${api}/items/${code}`, { headers: headersOf(token) });
    return { status: response.status, body: (await response.json()) as PublicItem };
  };
  const change = async (method: string, path: string, body?: unknown, token: string | undefined = owner.token) => {
    const json = body !== undefined && !(body instanceof FormData);
    const response = await fetch(`${stack.api}${path}`, {
      method,
      headers: { ...headersOf(token), ...(json ? { 'content-type': 'application/json' } : {}) },
      body: json ? JSON.stringify(body) : (body as FormData | undefined),
    });
    expect(response.status).toBeLessThan(300);
    return response;
  };

  const itemsCallsDuring = (work: () => Promise<void>) => rpcCallsDuring(stack, 'items', work);

  /** Scans the replica until `seen` holds; fails if that takes longer than an event could (far less than the TTL). */
  async function replicaShows(code: string, seen: (answer: { status: number; body: PublicItem }) => boolean): Promise<void> {
    const answered = performance.now();
    while (!seen(await scan(code))) {
      if (performance.now() - answered > EVENT_WINDOW_MS) throw new Error(`the replica did not show the change of ${code} within ${EVENT_WINDOW_MS} ms`);
      await new Promise((done) => setTimeout(done, 2));
    }
  }

  async function createdItem(name: string): Promise<string> {
    const response = await change('POST', '/items', { name });
    return ((await response.json()) as PublicItem).code;
  }

  it('answers a repeated scan with no call to items, telling the owner apart per viewer', async () => {
    const code = await createdItem('Blue umbrella');
    await scan(code);
    // The replica keeps scans once its subscriptions are in place, a moment after it started.
    await expectEventually(async () => expect(await itemsCallsDuring(async () => void (await scan(code)))).toEqual([]));

    const calls = await itemsCallsDuring(async () => {
      // Sent from memory as the JSON it was when first kept, typed as Fastify types the JSON it makes.
      const fromMemory = await fetch(`${replicaApi}/items/${code}`);
      expect(fromMemory.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await fromMemory.json()).toMatchObject({ code, name: 'Blue umbrella', is_owner: false });
      expect(await scan(code)).toEqual({ status: 200, body: { code, name: 'Blue umbrella', claimed_at: expect.any(String), activated: true, is_owner: false, lost: false, relay_address: expect.stringMatching(/^tag-[0-9a-z]{16}@relay\.localhost$/) } });
      expect(await scan(code, owner.token)).toMatchObject({ status: 200, body: { code, is_owner: true, user_id: owner.userId } });
      const stranger = await scan(code, testAccessToken().token);
      expect(stranger.body.is_owner).toBe(false);
      expect(stranger.body).not.toHaveProperty('user_id');
    });
    expect(calls).toEqual([]);
  });

  it('answers scans that reach it together each its own item or 404, asking items about each code once', async () => {
    const names = ['Red bike', 'Green scarf', 'Black wallet', 'White hat'];
    const known = await Promise.all(names.map((name) => createdItem(name)));
    // Well formed, never minted: 404s (two of the address's unknown-code allowance).
    const unknown = ['ZZZZ-ZZZZ-ZZZZ-ZZZ2', 'ZZZZ-ZZZZ-ZZZZ-ZZZ3'];
    const asked: string[][] = [];
    const subscription = stack.nc.subscribe(`${stack.namespace}.items.rpc.get-public-many`, {
      callback: (_error, msg) => void asked.push((msg.json() as { codes: string[] }).codes),
    });
    await stack.nc.flush();
    const scans = [known[0], unknown[0], known[1], known[2], unknown[1], known[3]];
    const answers = await Promise.all(scans.map((code) => scan(code)));
    await stack.nc.flush();
    subscription.unsubscribe();
    expect(answers.map(({ status, body }) => (status === 200 ? body.name : status))).toEqual(['Red bike', 404, 'Green scarf', 'Black wallet', 404, 'White hat']);
    // Every code asked about once, however the scans fell into calls (those of one turn of the loop share one).
    expect(asked.flat().sort()).toEqual(scans.map((code) => code.replace(/-/g, '')).sort());
  });

  it('shows a rename on another replica’s scans by items’ event, long before the cache’s TTL', async () => {
    const code = await createdItem('Keys');
    await expectEventually(async () => expect(await itemsCallsDuring(async () => expect((await scan(code)).body.name).toBe('Keys'))).toEqual([]));

    await change('PATCH', `/user/items/${code}`, { name: 'House keys' });
    await replicaShows(code, ({ body }) => body.name === 'House keys');
    // And the stack's own gateway, which made the change, shows it at once.
    expect((await scan(code, undefined, stack.api)).body.name).toBe('House keys');
  });

  it('renders the finder page of a kept item for a first visit once, again after a change, and a finder’s own page apart', async () => {
    const code = await createdItem('Spare keys');
    const page = async (language: string, cookie?: string) =>
      (await fetch(`${replicaBase}/found/${code}`, { headers: { 'accept-language': language, ...(cookie ? { cookie } : {}) } })).text();
    await expectEventually(async () => expect(await itemsCallsDuring(async () => expect(await page('en')).toContain('Spare keys'))).toEqual([]));
    const [english, dutch] = [await page('en'), await page('nl')];
    expect(english).toContain('<html lang="en">');
    expect(dutch).toContain('<html lang="nl">');
    expect(dutch).toContain('Spare keys');

    await change('PATCH', `/user/items/${code}`, { name: 'Garage keys' });
    await replicaShows(code, ({ body }) => body.name === 'Garage keys');
    // The page is never staler than the replica's scan: it is kept with the very item the scan cache answers.
    for (const language of ['en', 'nl']) {
      const renamed = await page(language);
      expect(renamed).toContain('Garage keys');
      expect(renamed).not.toContain('Spare keys');
    }

    // A finder's page shows their conversation; a first visit's, after it, still does not.
    const posted = await fetch(`${replicaBase}/found/${code}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: replicaPublicUrl },
      body: new URLSearchParams({ content: 'Found them by the garage door', language: 'en' }).toString(),
    });
    expect(posted.status).toBe(303);
    const cookie = (posted.headers.get('set-cookie') ?? '').split(';')[0];
    expect(await page('en', cookie)).toContain('Found them by the garage door');
    expect(await page('en')).not.toContain('Found them by the garage door');
  });

  it('shows a new photo, an activation and a deletion on another replica by items’ events', async () => {
    const code = await createdItem('Green bike');
    await expectEventually(async () => expect(await itemsCallsDuring(async () => expect((await scan(code)).body).not.toHaveProperty('photo'))).toEqual([]));
    const form = new FormData();
    form.append('code', code);
    form.append('file', new Blob([await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 20, g: 140, b: 60 } } }).jpeg().toBuffer()], { type: 'image/jpeg' }), 'photo');
    const urls = (await (await change('POST', '/images/upload', form)).json()) as PhotoUrls;
    await replicaShows(code, ({ body }) => body.photo?.normal === urls.normal);

    const tag = seeded[0];
    await expectEventually(async () => expect(await itemsCallsDuring(async () => expect((await scan(tag)).body.activated).toBe(false))).toEqual([]));
    await change('POST', '/claim', { code: tag, email: 'new.owner@example.com' }, undefined);
    await replicaShows(tag, ({ body }) => body.activated);

    await change('DELETE', `/user/items/${code}`);
    await replicaShows(code, ({ status }) => status === 404);
  });
});
