import { hash } from 'node:crypto';
import type { AccessTokenClaims } from '@homing/contracts';
import { CLOCK_TOLERANCE_SECONDS } from '@homing/platform';

// Tokens remembered at most: about 4 MB when full (a digest and the claims each). Past it the earliest remembered is
// dropped; a token dropped is only verified again.
const MAX_TOKENS = 10_000;

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
 * no remembered answer outlives the keys it was given with.
 */
export class VerifiedTokens {
  // In the order remembered: as every token has the same lifetime, also the order in which they expire.
  private readonly byDigest = new Map<string, Verified>();

  constructor(private readonly maxTokens = MAX_TOKENS) {}

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

  /** Remembers a token that has just verified, with its claims. */
  remember(token: string, claims: AccessTokenClaims, nowMs = Date.now()): void {
    const nowSeconds = Math.floor(nowMs / 1000);
    // Expired tokens at the front go first, then the earliest remembered while the map is full.
    for (const [digest, verified] of this.byDigest) {
      if (verified.expiredFrom > nowSeconds && this.byDigest.size < this.maxTokens) break;
      this.byDigest.delete(digest);
    }
    this.byDigest.set(digestOf(token), { claims, expiredFrom: claims.exp + CLOCK_TOLERANCE_SECONDS });
  }
}

function digestOf(token: string): string {
  return hash('sha256', token, 'base64');
}
