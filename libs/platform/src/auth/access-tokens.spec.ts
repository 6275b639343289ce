import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { InvalidAccessTokenError, signAccessToken, verificationKeysOf, verifyAccessToken } from './access-tokens';

const pair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
};

describe('access tokens (S7)', () => {
  const keys = pair();
  const subject = { id: randomUUID(), email: 'owner@example.com', is_admin: false, sid: randomUUID(), jti: 'a1' };
  const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('verifies what it signed, with every claim', () => {
    const claims = verifyAccessToken(signAccessToken(subject, keys.privateKey), keys.publicKey);
    expect(claims).toMatchObject({ ...subject, iss: 'homing-identity', aud: 'homing' });
    expect(claims.exp - claims.iat).toBe(3600);
  });

  it('signs with the private key parsed once (a KeyObject) as with its PEM', () => {
    const parsed = createPrivateKey(keys.privateKey);
    const token = signAccessToken(subject, parsed, Date.parse('2026-12-06T06:00:00Z'));
    expect(verifyAccessToken(token, keys.publicKey, { nowMs: Date.parse('2026-12-06T06:10:00Z') })).toMatchObject(subject);
    expect(() => verifyAccessToken(signAccessToken(subject, createPrivateKey(pair().privateKey)), keys.publicKey)).toThrow('invalid signature');
  });

  it('refuses alg:none, HS256 signed with the public key, another key, a tampered payload, a wrong issuer and an expired token', () => {
    const valid = signAccessToken(subject, keys.privateKey);
    const [header, payload, signature] = valid.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = [
      `${base64url({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      // The classic key-confusion attack: HMAC "signed" with the public key as the secret.
      `${base64url({ alg: 'HS256', typ: 'JWT' })}.${payload}.${Buffer.from('x').toString('base64url')}`,
      signAccessToken(subject, pair().privateKey),
      `${header}.${base64url({ ...claims, is_admin: true })}.${signature}`,
      jwt.sign({ ...claims, iss: 'someone-else' }, keys.privateKey, { algorithm: 'ES256' }),
      signAccessToken(subject, keys.privateKey, Date.now() - 2 * 60 * 60 * 1000),
    ];
    const hmac = (() => {
      try {
        return jwt.sign(claims, keys.publicKey, { algorithm: 'HS256' });
      } catch {
        return null;
      }
    })();
    if (hmac) forged.push(hmac);
    for (const token of forged) expect(() => verifyAccessToken(token, keys.publicKey)).toThrow(InvalidAccessTokenError);
  });

  it('accepts an expired token only when asked to (refresh), and a small clock skew', () => {
    const expired = signAccessToken(subject, keys.privateKey, Date.now() - 2 * 60 * 60 * 1000);
    expect(verifyAccessToken(expired, keys.publicKey, { ignoreExpiration: true }).sid).toBe(subject.sid);
    const fromTheFuture = signAccessToken(subject, keys.privateKey, Date.now() + 20_000);
    expect(verifyAccessToken(fromTheFuture, keys.publicKey).id).toBe(subject.id);
  });

  it('accepts tokens of the previous key while keys rotate, and nothing the forged list above could pass', () => {
    const next = pair();
    const rotating = verificationKeysOf(next.publicKey, keys.publicKey);
    expect(verifyAccessToken(signAccessToken(subject, keys.privateKey), rotating).sid).toBe(subject.sid);
    expect(verifyAccessToken(signAccessToken(subject, next.privateKey), rotating).sid).toBe(subject.sid);
    expect(() => verifyAccessToken(signAccessToken(subject, pair().privateKey), rotating)).toThrow('invalid signature');
    const expired = signAccessToken(subject, keys.privateKey, Date.now() - 2 * 60 * 60 * 1000);
    expect(() => verifyAccessToken(expired, rotating)).toThrow('jwt expired');
    expect(verifyAccessToken(expired, rotating, { ignoreExpiration: true }).sid).toBe(subject.sid);
    // Once the previous key is dropped, its tokens are refused.
    expect(() => verifyAccessToken(signAccessToken(subject, keys.privateKey), verificationKeysOf(next.publicKey))).toThrow(InvalidAccessTokenError);
  });
});
