import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { InvalidAccessTokenError, signAccessToken, verifyAccessToken } from '@homing/platform';
import { VerifiedTokens } from './verified-tokens';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const subject = () => ({ id: randomUUID(), email: 'owner@example.com', is_admin: false, sid: randomUUID(), jti: randomUUID().slice(0, 8) });

/** A token signed at `signedAtMs`, and its claims as the gateway verifies them then. */
function verifiedToken(signedAtMs = Date.now()) {
  const token = signAccessToken(subject(), privatePem, signedAtMs);
  return { token, claims: verifyAccessToken(token, [publicKey], { nowMs: signedAtMs }) };
}

function verifies(token: string, nowMs: number): boolean {
  try {
    verifyAccessToken(token, [publicKey], { nowMs });
    return true;
  } catch (error) {
    if (error instanceof InvalidAccessTokenError) return false;
    throw error;
  }
}

describe('VerifiedTokens', () => {
  it('answers a verified token’s claims exactly as long as verifying it again would accept it', () => {
    const signedAt = Date.UTC(2026, 10, 29, 12, 0, 0);
    const { token, claims } = verifiedToken(signedAt);
    const tokens = new VerifiedTokens();
    tokens.remember(token, claims);
    // Around the moment the verification starts refusing it (expiry plus the clock tolerance), second by second.
    const lastSecond = (claims.exp + 30) * 1000 - 1;
    for (const nowMs of [signedAt, lastSecond - 1000, lastSecond, lastSecond + 1, lastSecond + 1000]) {
      const fresh = new VerifiedTokens();
      fresh.remember(token, claims);
      expect({ nowMs, remembered: fresh.claimsOf(token, nowMs) !== undefined }).toEqual({ nowMs, remembered: verifies(token, nowMs) });
    }
    expect(tokens.claimsOf(token, lastSecond)).toEqual(claims);
    expect(tokens.claimsOf(token, lastSecond + 1)).toBeUndefined();
    // An expired token is forgotten, not kept for later.
    expect(tokens.size).toBe(0);
  });

  it('knows a token only by all of its text: one byte changed anywhere is a token never verified', () => {
    const { token, claims } = verifiedToken();
    const tokens = new VerifiedTokens();
    tokens.remember(token, claims);
    expect(tokens.claimsOf(token)).toEqual(claims);
    const [header, payload, signature] = token.split('.');
    const flip = (part: string) => `${part.slice(0, -2)}${part.at(-2) === 'A' ? 'B' : 'A'}${part.at(-1)}`;
    for (const changed of [`${flip(header)}.${payload}.${signature}`, `${header}.${flip(payload)}.${signature}`, `${header}.${payload}.${flip(signature)}`, `${token} `]) {
      expect(tokens.claimsOf(changed)).toBeUndefined();
    }
    expect(tokens.claimsOf(verifiedToken().token)).toBeUndefined();
  });

  it('keeps at most its limit, dropping the earliest remembered', () => {
    const now = Date.now();
    const tokens = new VerifiedTokens(3);
    const first = verifiedToken(now);
    const others = [verifiedToken(now), verifiedToken(now), verifiedToken(now)];
    for (const { token, claims } of [first, ...others]) tokens.remember(token, claims);
    expect(tokens.size).toBe(3);
    expect(tokens.claimsOf(first.token, now)).toBeUndefined();
    for (const { token, claims } of others) expect(tokens.claimsOf(token, now)).toEqual(claims);
  });

  it('drops every expired token when it sweeps, also those remembered after a token still valid', () => {
    const now = Date.now();
    const hour = 60 * 60 * 1000;
    const tokens = new VerifiedTokens();
    // First seen here in this order: a token signed just now, then two signed an hour and a half ago (seen late), then
    // one signed half an hour ago.
    const current = verifiedToken(now);
    const old = [verifiedToken(now - 1.5 * hour), verifiedToken(now - 1.5 * hour)];
    const recent = verifiedToken(now - 0.5 * hour);
    for (const { token, claims } of [current, ...old, recent]) tokens.remember(token, claims);
    tokens.sweep(now);
    expect(tokens.size).toBe(2);
    expect(tokens.claimsOf(current.token, now)).toEqual(current.claims);
    expect(tokens.claimsOf(recent.token, now)).toEqual(recent.claims);
    // An hour on, the one signed half an hour ago has expired too.
    tokens.sweep(now + hour);
    expect(tokens.size).toBe(1);
    tokens.close();
  });
});
