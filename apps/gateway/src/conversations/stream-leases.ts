import { randomUUID } from 'node:crypto';
import { Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { clientNetworkOf } from '@homing/platform';

export interface StreamLeaseOptions {
  /** Streams one client address may hold open at once, across every gateway replica (`STREAMS_PER_ADDRESS`). */
  perAddress: number;
  /** How often the holder renews its leases (the heartbeat of the streams, `SSE_HEARTBEAT_MS`). */
  renewEveryMs: number;
  /** Environments (and test workers) sharing one Redis count apart. */
  namespace: string;
}

export type LeaseAnswer = { granted: true; release: () => void } | { granted: false; retryAfterMs: number };

// A lease outlives three missed renewals: a replica that died stops holding its streams' places within that time.
const MISSED_RENEWALS = 3;

// Atomic per address: drop expired leases, then take a place if one is free. Times are Redis' own clock, so replicas
// whose clocks differ agree on what has expired. Refused: how long until the oldest lease runs out unless renewed.
const ACQUIRE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) - now}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, 0}
`;

// Renews the leases still held; a lease that expired meanwhile (Redis was away) is taken again only if it still fits.
const RENEW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for index = 1, #KEYS do
  redis.call('ZADD', KEYS[index], 'XX', now + tonumber(ARGV[1]), ARGV[index + 1])
  redis.call('PEXPIRE', KEYS[index], ARGV[1])
end
return #KEYS
`;

/**
 * Places for open message streams per client address, shared by every gateway replica through Redis: each open
 * stream holds a lease its replica renews with every heartbeat, and gives it back when the stream ends. A stream
 * beyond the cap is refused before it opens; the streams already open are never touched.
 */
export class StreamLeases implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(StreamLeases.name);
  /** Lease id → the Redis key of its address. */
  private readonly held = new Map<string, string>();
  private readonly ttlMs: number;
  private renewals?: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly options: StreamLeaseOptions,
  ) {
    this.ttlMs = options.renewEveryMs * MISSED_RENEWALS;
  }

  onModuleInit(): void {
    // One timer for every lease of the process, at the streams' heartbeat.
    this.renewals = setInterval(() => {
      this.renew().catch((error: Error) => this.logger.warn(`stream leases not renewed: ${error.message}`));
    }, this.options.renewEveryMs).unref();
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.renewals);
  }

  private key(address: string): string {
    // Per client: an IPv6 host would otherwise have a place for every address of its /64.
    return `${this.options.namespace}:streams:${clientNetworkOf(address)}`;
  }

  /** Takes a place for a new stream of `address`, or says how long until one may free up. Throws if Redis cannot answer. */
  async acquire(address: string): Promise<LeaseAnswer> {
    const id = randomUUID();
    const key = this.key(address);
    const [granted, retryAfterMs] = (await this.redis.eval(ACQUIRE, 1, key, this.options.perAddress, this.ttlMs, id)) as [number, number];
    if (granted !== 1) return { granted: false, retryAfterMs: Math.max(1000, retryAfterMs) };
    this.held.set(id, key);
    let released = false;
    return {
      granted: true,
      release: () => {
        if (released) return;
        released = true;
        this.held.delete(id);
        // Best effort: a lease not given back expires on its own.
        this.redis.zrem(key, id).catch(() => undefined);
      },
    };
  }

  /** Renews every lease this replica holds, in one round trip: called with each heartbeat of the streams. */
  async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const ids = [...this.held.keys()];
    await this.redis.eval(RENEW, ids.length, ...this.held.values(), this.ttlMs, ...ids);
  }

  /** Leases this replica holds (for metrics and tests). */
  get size(): number {
    return this.held.size;
  }
}
