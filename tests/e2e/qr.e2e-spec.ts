import { runServiceCommand } from '@homing/testing';
import { startStack, type Stack } from '../support/stack';

// Tag lookups from the public side: the scan's limit on unknown codes, and the QR images of a tag.
describe('tag lookups and QR images', () => {
  let stack: Stack;
  let api: string;
  let seeded: string[];

  beforeAll(async () => {
    stack = await startStack({
      // The suite plays several clients: the gateway believes X-Forwarded-For from the test process.
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1' } },
      beforeStart: async ({ envOf }) => {
        seeded = (await runServiceCommand('items', ['seed-tags', '--count', '2'], envOf('items'))).trim().split('\n');
      },
    });
    ({ api } = stack);
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
});
