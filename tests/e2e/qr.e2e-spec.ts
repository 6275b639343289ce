import { runServiceCommand } from '@homing/testing';
import { decodeQrSvg } from '../support/qr-decode';
import { startStack, type Stack } from '../support/stack';

// Tag lookups from the public side: the scan's limit on unknown codes, and the QR images of a tag.
describe('tag lookups and QR images', () => {
  let stack: Stack;
  let api: string;
  let base: string;
  let seeded: string[];
  let publicUrl: string;

  beforeAll(async () => {
    stack = await startStack({
      // The suite plays several clients: the gateway believes X-Forwarded-For from the test process.
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1' } },
      beforeStart: async ({ envOf }) => {
        seeded = (await runServiceCommand('items', ['seed-tags', '--count', '2'], envOf('items'))).trim().split('\n');
      },
    });
    ({ api, base } = stack);
    publicUrl = `http://localhost:${new URL(base).port}`;
  });

  afterAll(() => stack?.stop());

  const from = (address: string) => ({ 'x-forwarded-for': address });
  // Unknown but well-formed codes, different each time.
  let guess = 0;
  const unknownCode = () => `ZZZZ-ZZZZ-ZZZZ-${String(1000 + (guess += 1)).slice(-4)}`;

  describe('unknown-code limit', () => {
    it('stops a client guessing codes after 30 misses in an hour, for every code, with Retry-After', async () => {
      const scanner = from('203.0.113.7');
      for (let miss = 1; miss <= 30; miss += 1) {
        const response = await fetch(`${api}/items/${unknownCode()}`, { headers: scanner });
        expect({ miss, status: response.status }).toEqual({ miss, status: 404 });
      }
      // Known codes too: answering them would tell the scanner which guesses exist.
      for (const code of [unknownCode(), seeded[0], 'not-a-code']) {
        const response = await fetch(`${api}/items/${code}`, { headers: scanner });
        expect({ code, status: response.status }).toEqual({ code, status: 429 });
        expect(await response.json()).toMatchObject({ response_code: 'RATE_LIMITED' });
        const retryAfter = Number(response.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(3500);
        expect(retryAfter).toBeLessThanOrEqual(3600);
      }
    });

    it('leaves other clients alone', async () => {
      expect((await fetch(`${api}/items/${seeded[0]}`, { headers: from('203.0.113.8') })).status).toBe(200);
      expect((await fetch(`${api}/items/${unknownCode()}`, { headers: from('203.0.113.8') })).status).toBe(404);
    });

    it('never counts a finder’s lookups of a real tag', async () => {
      const finder = from('198.51.100.20');
      for (let scan = 1; scan <= 40; scan += 1) {
        const response = await fetch(`${api}/items/${seeded[1]}`, { headers: finder });
        expect({ scan, status: response.status }).toEqual({ scan, status: 200 });
      }
      // A few typos on top do not lock them out.
      for (let typo = 1; typo <= 5; typo += 1) expect((await fetch(`${api}/items/${unknownCode()}`, { headers: finder })).status).toBe(404);
      expect((await fetch(`${api}/items/${seeded[1]}`, { headers: finder })).status).toBe(200);
    });
  });

  describe('QR images', () => {
    const qr = (code: string, query = '', headers: Record<string, string> = {}) => fetch(`${base}/qr/${code}${query}`, { headers });

    it('serves a tag’s QR code as SVG that opens its finder page', async () => {
      const response = await qr(seeded[0], '?sizeInPx=300');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
      const svg = await response.text();
      expect(svg).toMatch(/^<svg [^>]*width="300" height="300"/);
      expect(decodeQrSvg(svg)).toBe(`${publicUrl}/found/${seeded[0]}`);
    });

    it('serves the SVG as base64 text with b64=1, and finds the code as people type it', async () => {
      const response = await qr(seeded[0].toLowerCase().replace(/-/g, ''), '?sizeInPx=400&b64=1');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      const svg = Buffer.from(await response.text(), 'base64').toString();
      expect(decodeQrSvg(svg)).toBe(`${publicUrl}/found/${seeded[0]}`);
    });

    it('is cached for a week, not forever, and answers 304 to its ETag', async () => {
      const first = await qr(seeded[1]);
      expect(first.headers.get('cache-control')).toBe('public, max-age=604800');
      const etag = first.headers.get('etag') as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await qr(seeded[1], '', { 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
      // Another size is another image.
      const other = await qr(seeded[1], '?sizeInPx=128', { 'if-none-match': etag });
      expect(other.status).toBe(200);
      expect(other.headers.get('etag')).not.toBe(etag);
    });

    it.each(['?sizeInPx=63', '?sizeInPx=2049', '?sizeInPx=abc', '?sizeInPx=-100', '?b64=yes'])('refuses %s with a validation error', async (query) => {
      const response = await qr(seeded[0], query);
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ response_code: 'VALIDATION_ERROR' });
    });

    it.each(['?sizeInPx=64', '?sizeInPx=2048'])('accepts the bound %s', async (query) => {
      expect((await qr(seeded[0], query)).status).toBe(200);
    });

    it('draws no QR code for a code that does not exist', async () => {
      for (const code of ['ZZZZ-ZZZZ-ZZZZ-ZZZY', 'not-a-code']) {
        const response = await qr(code, '', from('192.0.2.50'));
        expect(response.status).toBe(404);
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(await response.json()).toEqual({ response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' });
      }
    });

    it('counts unknown codes on /qr against the same limit as the scan', async () => {
      const scanner = from('203.0.113.99');
      for (let miss = 1; miss <= 30; miss += 1) expect((await qr(unknownCode(), '', scanner)).status).toBe(404);
      expect((await qr(seeded[0], '', scanner)).status).toBe(429);
      expect((await fetch(`${api}/items/${seeded[0]}`, { headers: scanner })).status).toBe(429);
    });
  });
});
