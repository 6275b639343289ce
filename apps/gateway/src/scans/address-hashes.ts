import { createHmac, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectConfig, RedisClient } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';

const DAY_MS = 24 * 60 * 60_000;

/**
 * Keyed digests of client addresses for the scan limits, so no scan-related key in Redis holds an address. The key
 * is random, one per UTC day, shared by every replica through Redis and gone two days later: once it is, nobody (us
 * included) can tell which address a digest was.
 */
@Injectable()
export class AddressHashes {
  private current: { day: string; key: Buffer } | null = null;

  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /** The address's digest under today's key (base64url, 22 characters). Throws if Redis cannot answer. */
  async digest(address: string, now = new Date()): Promise<string> {
    const key = await this.keyOf(now.toISOString().slice(0, 10));
    return createHmac('sha256', key).update(address).digest('base64url').slice(0, 22);
  }

  private async keyOf(day: string): Promise<Buffer> {
    if (this.current?.day === day) return this.current.key;
    const name = `${this.config.NATS_NAMESPACE}:address-hash-key:${day}`;
    // The first replica of the day makes the key; the others read the one it made.
    await this.redis.redis.set(name, randomBytes(32).toString('base64'), 'PX', 2 * DAY_MS, 'NX');
    const stored = await this.redis.redis.get(name);
    if (!stored) throw new Error('the address hash key could not be read');
    this.current = { day, key: Buffer.from(stored, 'base64') };
    return this.current.key;
  }
}
