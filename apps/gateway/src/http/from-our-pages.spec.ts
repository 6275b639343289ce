import { fromOurPages, requestSiteHeaders } from './from-our-pages';

describe('fromOurPages', () => {
  const site = 'https://homing.example';

  it('takes the finder page’s own fetch, and a client that is no browser page', () => {
    expect(fromOurPages({ 'sec-fetch-site': 'same-origin', origin: site }, site)).toBe(true);
    expect(fromOurPages({ origin: site }, site)).toBe(true);
    expect(fromOurPages({}, site)).toBe(true);
  });

  it('refuses another site’s form or script, by Sec-Fetch-Site first, else by Origin', () => {
    expect(fromOurPages({ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }, site)).toBe(false);
    expect(fromOurPages({ 'sec-fetch-site': 'same-site', origin: 'https://sub.homing.example' }, site)).toBe(false);
    expect(fromOurPages({ origin: 'https://evil.example' }, site)).toBe(false);
    expect(fromOurPages({ origin: 'null' }, site)).toBe(false);
  });
});

describe('requestSiteHeaders', () => {
  it('keeps the two headers once each, and drops one sent twice', () => {
    expect(requestSiteHeaders({ origin: 'https://homing.example', 'sec-fetch-site': 'same-origin', cookie: 'x' })).toEqual({ origin: 'https://homing.example', 'sec-fetch-site': 'same-origin' });
    expect(requestSiteHeaders({ origin: ['https://a.example', 'https://b.example'] })).toEqual({ origin: undefined, 'sec-fetch-site': undefined });
  });
});
