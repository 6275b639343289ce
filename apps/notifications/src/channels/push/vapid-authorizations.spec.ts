import { createPublicKey, verify } from 'node:crypto';
import webpush from 'web-push';
import { VAPID_TOKEN_LIFETIME_SECONDS, VAPID_TOKEN_RENEWAL_MS, VapidAuthorizations } from './vapid-authorizations';

const keys = webpush.generateVAPIDKeys();
const vapid = { subject: 'mailto:ops@homing.example', ...keys };

/** The token's claims, its signature checked with the `k=` key as a push service checks it (RFC 8292). */
function claimsOf(header: string): { aud: string; exp: number; sub: string } {
  const match = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(header);
  if (!match) throw new Error(`not a VAPID header: ${header}`);
  const [, head, claims, signature, k] = match;
  const raw = Buffer.from(k, 'base64url');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') }, format: 'jwk' });
  expect(k).toBe(keys.publicKey);
  expect(verify('sha256', Buffer.from(`${head}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))).toBe(true);
  return JSON.parse(Buffer.from(claims, 'base64url').toString()) as { aud: string; exp: number; sub: string };
}

describe('VAPID authorizations', () => {
  const start = Date.parse('2026-12-06T06:00:00Z');

  it('signs one token per push service and uses it for every push there until it is renewed', () => {
    let now = start;
    const authorizations = new VapidAuthorizations(vapid, () => now);
    const first = authorizations.headerFor('https://fcm.googleapis.com/fcm/send/abc');
    expect(claimsOf(first)).toEqual({ aud: 'https://fcm.googleapis.com', exp: start / 1000 + VAPID_TOKEN_LIFETIME_SECONDS, sub: vapid.subject });

    now = start + VAPID_TOKEN_RENEWAL_MS - 1;
    expect(authorizations.headerFor('https://fcm.googleapis.com/fcm/send/another-subscription')).toBe(first);

    const mozilla = authorizations.headerFor('https://updates.push.services.mozilla.com/wpush/v2/xyz');
    expect(claimsOf(mozilla).aud).toBe('https://updates.push.services.mozilla.com');

    now = start + VAPID_TOKEN_RENEWAL_MS;
    const renewed = authorizations.headerFor('https://fcm.googleapis.com/fcm/send/abc');
    expect(renewed).not.toBe(first);
    expect(claimsOf(renewed).exp).toBe(now / 1000 + VAPID_TOKEN_LIFETIME_SECONDS);
  });

  it('never hands out a token with less than its lifetime less the renewal left', () => {
    let now = start;
    const authorizations = new VapidAuthorizations(vapid, () => now);
    for (let minute = 0; minute <= 180; minute += 7) {
      now = start + minute * 60_000;
      const { exp } = claimsOf(authorizations.headerFor('https://web.push.apple.com/QO'));
      expect(exp - now / 1000).toBeGreaterThan(VAPID_TOKEN_LIFETIME_SECONDS - VAPID_TOKEN_RENEWAL_MS / 1000);
      expect(exp - now / 1000).toBeLessThanOrEqual(24 * 60 * 60);
    }
  });

  it('names the audience by origin, with the port only when it is not https’s own', () => {
    const authorizations = new VapidAuthorizations(vapid);
    expect(claimsOf(authorizations.headerFor('https://localhost:8443/push/1')).aud).toBe('https://localhost:8443');
    expect(claimsOf(authorizations.headerFor('https://wns2-by3p.notify.windows.com:443/w/?token=1')).aud).toBe('https://wns2-by3p.notify.windows.com');
  });
});
