import { createPublicKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { ACCESS_TOKEN_AUDIENCE, ACCESS_TOKEN_ISSUER, ACCESS_TOKEN_LIFETIME_SECONDS, type AccessTokenClaims } from '@homing/contracts';

// Clocks of identity and the gateways may differ a little; more than this and a token is refused.
export const CLOCK_TOLERANCE_SECONDS = 30;

const claimsSchema = z.object({
  id: z.uuid(),
  email: z.string().min(1),
  is_admin: z.boolean(),
  sid: z.uuid(),
  jti: z.string().min(1).max(64),
  iat: z.number().int(),
  exp: z.number().int(),
  iss: z.literal(ACCESS_TOKEN_ISSUER),
  aud: z.literal(ACCESS_TOKEN_AUDIENCE),
});

/** The token is not one of ours, was tampered with, has expired, or lacks a claim. */
export class InvalidAccessTokenError extends Error {
  constructor(reason: string) {
    super(`invalid access token: ${reason}`);
    this.name = 'InvalidAccessTokenError';
  }
}

export type AccessTokenSubject = Pick<AccessTokenClaims, 'id' | 'email' | 'is_admin' | 'sid' | 'jti'>;

/**
 * Signs an access token (ES256, ARCHITECTURE §6) with identity's private key. Identity passes the key parsed once
 * (`createPrivateKey`): given as PEM, the key is parsed again on every signature, nine tenths of a signature's CPU
 * (about 600 µs against 60 on this project's machines, docs/benchmarks.md "Stop 77").
 */
export function signAccessToken(subject: AccessTokenSubject, privateKey: string | KeyObject, nowMs = Date.now()): string {
  const iat = Math.floor(nowMs / 1000);
  const claims: AccessTokenClaims = {
    id: subject.id,
    email: subject.email,
    is_admin: subject.is_admin,
    sid: subject.sid,
    jti: subject.jti,
    iat,
    exp: iat + ACCESS_TOKEN_LIFETIME_SECONDS,
    iss: ACCESS_TOKEN_ISSUER,
    aud: ACCESS_TOKEN_AUDIENCE,
  };
  return jwt.sign(claims, privateKey, { algorithm: 'ES256' });
}

/**
 * The keys access tokens are verified with, parsed once (not per request): the current one and, while keys are
 * being rotated, the previous one (`JWT_PREVIOUS_PUBLIC_KEY`), so tokens signed before the rotation stay valid
 * until they expire and can still be refreshed (docs/operations.md, "Rotate keys").
 */
export function verificationKeysOf(...pems: Array<string | KeyObject | undefined>): KeyObject[] {
  return pems.filter((pem): pem is string | KeyObject => Boolean(pem)).map((pem) => (typeof pem === 'string' ? createPublicKey(pem.replace(/\\n/g, '\n')) : pem));
}

/**
 * Verifies an access token with the public key(s): ES256 only (so `alg: none` and an HS256 token "signed" with the
 * public key are refused), our issuer and audience, expiry with a bounded clock skew (unless ignored, as refresh
 * does), and every claim present. With several keys, a signature any of them verifies is accepted.
 * Throws InvalidAccessTokenError.
 */
export function verifyAccessToken(
  token: string,
  keys: string | KeyObject | readonly KeyObject[],
  options: { ignoreExpiration?: boolean; nowMs?: number } = {},
): AccessTokenClaims {
  const candidates = Array.isArray(keys) ? keys : [keys as string | KeyObject];
  let decoded: unknown;
  let failure: Error | undefined;
  for (const key of candidates) {
    try {
      decoded = jwt.verify(token, key, {
        algorithms: ['ES256'],
        issuer: ACCESS_TOKEN_ISSUER,
        audience: ACCESS_TOKEN_AUDIENCE,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        ignoreExpiration: options.ignoreExpiration ?? false,
        ...(options.nowMs !== undefined ? { clockTimestamp: Math.floor(options.nowMs / 1000) } : {}),
      });
      failure = undefined;
      break;
    } catch (error) {
      failure = error as Error;
      // Only a signature another key may verify is worth another try; an expired or malformed token is not.
      if ((error as Error).message !== 'invalid signature') break;
    }
  }
  if (failure || decoded === undefined) throw new InvalidAccessTokenError((failure ?? new Error('no key')).message);
  const claims = claimsSchema.safeParse(decoded);
  if (!claims.success) throw new InvalidAccessTokenError(`bad claims (${claims.error.issues[0]?.path.join('.')})`);
  return claims.data;
}
