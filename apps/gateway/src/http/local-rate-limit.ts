import { retryAfterSeconds } from '@homing/platform';

// Addresses counted per window at most; past it, new addresses go uncounted until the window ends (memory stays bounded
// under a flood of addresses, each of which makes few requests: not what a per-address limit is for).
const MAX_ADDRESSES = 100_000;

/**
 * A per-address request limit in this process's memory: fixed windows, every count dropped when a window ends. For a
 * route whose every request must not cost a Redis round trip (the QR image: B6). With several gateway replicas an
 * address gets the limit at each, which is enough where the real lock is elsewhere (the unknown-code limit stops
 * guessing codes, and it is shared).
 */
export class LocalRateLimit {
  private windowEndsAt = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxAddresses = MAX_ADDRESSES,
  ) {}

  /** Counts one request of the address: 0 when it may go on, else the seconds to wait (for Retry-After). */
  take(address: string, now = Date.now()): number {
    if (now >= this.windowEndsAt) {
      this.counts.clear();
      this.windowEndsAt = now + this.windowMs;
    }
    const count = (this.counts.get(address) ?? 0) + 1;
    if (count > this.limit) return retryAfterSeconds(this.windowEndsAt - now);
    if (count > 1 || this.counts.size < this.maxAddresses) this.counts.set(address, count);
    return 0;
  }
}
