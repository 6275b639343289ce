import { hash } from 'node:crypto';
import type { AccessTokenClaims } from '@homing/contracts';
import { CLOCK_TOLERANCE_SECONDS } from '@homing/platform';
import { OldestFirst } from '../caching/oldest-first';

// Tokens remembered at most: about 4 MB when full (a digest and the claims each). Past it the earliest remembered is
// dropped; a token dropped is only verified again.
const MAX_TOKENS = 10_000;
// How often expired tokens are looked for and dropped, whether or not the replica is busy: their claims are personal data.
const SWEEP_EVERY_MS = 60_000;

interface Verified {
  claims: AccessTokenClaims;
  /** The first whole second (Unix time) at which the token is expired, as jsonwebtoken decides it: exp + tolerance. */
  expiredFrom: number;
}

/**
 * The access tokens this replica has verified, with their claims, until they expire: a web app sends the same token with
 * every call for its whole lifetime (an owner's page polls every 3 s), and verifying its ES256 signature again each time
 * was most of an empty poll's gateway CPU (B4, docs/benchmarks.md). A token is found by a SHA-256 digest of all its
 * text, so a token differing in any byte (header, claims or signature) is verified afresh, and the bearer tokens
 * themselves are not kept. Only tokens that verified are remembered; expiry is checked on every use exactly as the
 * verification checks it. What a remembered token does not skip: the session's revocation check (AccessTokens).
 *
 * The keys a token verified with are this replica's for its life (they are read from its configuration at start), so
 * no remembered answer outlives the keys it was given with. An expired token is dropped when it is next presented, and
 * in any case within a minute of its expiry (a sweep); `close` stops the sweep.
 */
export class VerifiedTokens {
  // In the order remembered, which is about the order they expire in (every token lives an hour), but not exactly: a
  // replica may first see a token long after it was signed.
  private readonly byDigest = new Map<string, Verified>();
  private readonly earliest = new OldestFirst(this.byDigest);
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly maxTokens = MAX_TOKENS) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS).unref();
  }

  get size(): number {
    return this.byDigest.size;
  }

  /** The claims of a token verified before and not expired at `nowMs`; otherwise undefined (verify it). */
  claimsOf(token: string, nowMs = Date.now()): AccessTokenClaims | undefined {
    const digest = digestOf(token);
    const verified = this.byDigest.get(digest);
    if (verified === undefined) return undefined;
    if (Math.floor(nowMs / 1000) < verified.expiredFrom) return verified.claims;
    this.byDigest.delete(digest);
    return undefined;
  }

  /** Remembers a token that has just verified, with its claims; when full, the earliest remembered goes. */
  remember(token: string, claims: AccessTokenClaims): void {
    if (this.byDigest.size >= this.maxTokens) this.earliest.drop();
    this.byDigest.set(digestOf(token), { claims, expiredFrom: claims.exp + CLOCK_TOLERANCE_SECONDS });
  }

  /** Drops every token expired at `nowMs` (at most 10,000 to look at, once a minute). */
  sweep(nowMs = Date.now()): void {
    const nowSeconds = Math.floor(nowMs / 1000);
    for (const [digest, verified] of this.byDigest) if (verified.expiredFrom <= nowSeconds) this.byDigest.delete(digest);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}

function digestOf(token: string): string {
  return hash('sha256', token, 'base64');
}
