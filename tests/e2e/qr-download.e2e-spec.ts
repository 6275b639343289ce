import type { PublicItem } from '@homing/contracts';
import { runServiceCommand } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { decodeQrPng } from '../support/qr-decode';
import { startStack, type Stack } from '../support/stack';

// The PNG of a tag to print (`GET /items/{code}/qr/download`) follows the public SVG's access rule (`/qr/{code}`):
// anyone holding a code that exists gets it; an unknown code is the scan's 404 and counts against the same limit.
describe('the QR code of a tag as a PNG to print', () => {
  let stack: Stack;
  let api: string;
  let base: string;
  let unclaimed: string;
  let publicUrl: string;

  beforeAll(async () => {
    stack = await startStack({
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1' } },
      beforeStart: async ({ envOf }) => {
        [unclaimed] = (await runServiceCommand('items', ['seed-tags', '--count', '1'], envOf('items'))).trim().split('\n');
      },
    });
    ({ api, base } = stack);
    publicUrl = `http://localhost:${new URL(base).port}`;
  });

  afterAll(() => stack?.stop());

  const from = (address: string) => ({ 'x-forwarded-for': address });
  const download = (code: string, query = '', headers: Record<string, string> = {}) => fetch(`${api}/items/${code}/qr/download${query}`, { headers });
  let guess = 0;
  const unknownCode = () => `ZZZZ-ZZZZ-YYYY-${String(1000 + (guess += 1)).slice(-4)}`;

  async function ownedItem(): Promise<{ item: PublicItem; token: string }> {
    const owner = testAccessToken();
    const created = await fetch(`${api}/items`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Suitcase' }),
    });
    return { item: (await created.json()) as PublicItem, token: owner.token };
  }

  it('gives the owner a PNG file of their tag that opens its finder page, at the asked size, with an ETag', async () => {
    const { item, token } = await ownedItem();
    const response = await download(item.code, '', { authorization: `Bearer ${token}` });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="homing-${item.code}.png"`);
    const png = Buffer.from(await response.arrayBuffer());
    expect(decodeQrPng(png)).toBe(`${publicUrl}/found/${item.code}`);
    expect(png.readUInt32BE(16)).toBe(1024);

    const small = Buffer.from(await (await download(item.code, '?sizeInPx=200')).arrayBuffer());
    expect(small.readUInt32BE(16)).toBe(200);
    expect(decodeQrPng(small)).toBe(`${publicUrl}/found/${item.code}`);
    expect((await download(item.code, '', { 'if-none-match': response.headers.get('etag') as string })).status).toBe(304);
    expect((await download(item.code, '?sizeInPx=4096')).status).toBe(422);
  });

  it('answers anyone holding a code that exists, as /qr does, with the same cache header', async () => {
    const { item } = await ownedItem();
    for (const code of [item.code, unclaimed]) {
      const [png, svg] = await Promise.all([download(code, '', from('198.51.100.40')), fetch(`${base}/qr/${code}`, { headers: from('198.51.100.40') })]);
      expect({ code, png: png.status, svg: svg.status }).toEqual({ code, png: 200, svg: 200 });
      expect(png.headers.get('cache-control')).toBe(svg.headers.get('cache-control'));
      expect(decodeQrPng(Buffer.from(await png.arrayBuffer()))).toBe(`${publicUrl}/found/${code}`);
    }
    // A stranger's token changes nothing: the image is the code's, not the account's.
    expect((await download(item.code, '', { authorization: `Bearer ${testAccessToken().token}` })).status).toBe(200);
  });

  it('draws nothing for a code that does not exist, and counts the miss against the scan’s limit', async () => {
    for (const code of ['ZZZZ-ZZZZ-ZZZZ-ZZZY', 'not-a-code']) {
      const response = await download(code, '', from('192.0.2.60'));
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' });
    }
    const guesser = from('203.0.113.120');
    for (let miss = 1; miss <= 30; miss += 1) expect((await download(unknownCode(), '', guesser)).status).toBe(404);
    expect((await download(unclaimed, '', guesser)).status).toBe(429);
    expect((await fetch(`${base}/qr/${unclaimed}`, { headers: guesser })).status).toBe(429);
  });
});
