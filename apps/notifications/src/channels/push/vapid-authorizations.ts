import webpush from 'web-push';

/** How long a signed VAPID token says it holds (web-push's own default; RFC 8292 allows at most 24 h). */
export const VAPID_TOKEN_LIFETIME_SECONDS = 12 * 60 * 60;
/**
 * How long a token is used before a new one is signed: 11 hours of its 12 are left at its last use. Apple's push
 * service asks for no new token more often than once an hour ("Sending web push notifications in web apps and
 * browsers"), which web-push's token per send did not keep.
 */
export const VAPID_TOKEN_RENEWAL_MS = 60 * 60 * 1000;
// Allowed push services are a handful of hosts, but `*.notify.windows.com` names many: a bound all the same.
const MAX_AUDIENCES = 256;

export interface VapidDetails {
  subject: string;
  publicKey: string;
  privateKey: string;
}

/**
 * The `Authorization: vapid t=…, k=…` header (RFC 8292) per push service, signed once an hour instead of on every
 * push. web-push signs one per send, and each signature re-encodes the private key as PEM and parses it again: about
 * three quarters of a push's CPU (docs/benchmarks.md, "Stop 77"). RFC 8292 lets an application server use one token
 * for every request to the same push service until it expires; the push service is the token's audience, the origin
 * of the subscription's endpoint.
 */
export class VapidAuthorizations {
  private readonly byAudience = new Map<string, { header: string; renewAtMs: number }>();

  constructor(
    private readonly vapid: VapidDetails,
    private readonly now: () => number = Date.now,
  ) {}

  /** The header for a push to `endpoint` (an allowed push service's https URL). */
  headerFor(endpoint: string): string {
    const audience = new URL(endpoint).origin;
    const nowMs = this.now();
    const kept = this.byAudience.get(audience);
    if (kept && nowMs < kept.renewAtMs) return kept.header;
    const expiresAt = Math.floor(nowMs / 1000) + VAPID_TOKEN_LIFETIME_SECONDS;
    const { Authorization: header } = webpush.getVapidHeaders(audience, this.vapid.subject, this.vapid.publicKey, this.vapid.privateKey, 'aes128gcm', expiresAt);
    this.byAudience.delete(audience);
    if (this.byAudience.size >= MAX_AUDIENCES) this.byAudience.delete(this.byAudience.keys().next().value as string);
    this.byAudience.set(audience, { header, renewAtMs: nowMs + VAPID_TOKEN_RENEWAL_MS });
    return header;
  }
}
