import { deviceKindOf, placeOf } from './scan-place';

describe('placeOf', () => {
  it('finds the city and country of a public IPv4 address in the offline database', async () => {
    expect(await placeOf('145.53.1.1')).toEqual({ city: 'Arnhem', country: 'NL' });
    expect(await placeOf('::ffff:145.53.1.1')).toEqual({ city: 'Arnhem', country: 'NL' });
  });

  it.each(['127.0.0.1', '10.1.2.3', '192.168.1.10', '172.20.0.5', '100.64.1.1', '169.254.1.1', '::1', '2a02:a46e::1', 'not an address', ''])('gives no place for %p', async (address) => {
    expect(await placeOf(address)).toEqual({ city: null, country: null });
  });
});

describe('deviceKindOf', () => {
  it.each([
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 'phone'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36', 'phone'],
    ['Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36', 'tablet'],
    ['Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 'tablet'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36', 'desktop'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15', 'desktop'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', 'desktop'],
    ['curl/8.5.0', 'other'],
    [undefined, 'other'],
  ] as const)('%s is a %s', (userAgent, kind) => {
    expect(deviceKindOf(userAgent)).toBe(kind);
  });
});
