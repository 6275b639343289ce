import { HttpException, Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ResponseCode } from '@homing/contracts';
import { RedisClient, RpcError } from '@homing/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import { countInWindow, retryAfterSeconds } from '../http/window-counter';

/**
 * Lookups of codes that do not exist, per client address (ARCHITECTURE §7). A finder scans a real tag, or types one
 * and mistypes it a few times; only someone guessing codes misses this often. Codes are 80 random bits, so this is
 * defence in depth: it turns a scanner's free oracle into 30 guesses an hour.
 */
export const UNKNOWN_CODE_LIMIT = { misses: 30, windowMs: 60 * 60_000 } as const;

// Addresses remembered as blocked per replica; beyond this, the oldest are forgotten (they are counted in Redis).
const MAX_BLOCKED_REMEMBERED = 10_000;

/**
 * Counts misses in Redis, so every gateway replica counts together; the key expires with its window. Only a miss
 * touches Redis: the verdict "blocked until" is kept here, so a finder's scan of a real tag costs no round trip. A
 * blocked scanner reaching another replica is blocked there by its next miss (INCR answers the shared count).
 */
@Injectable()
export class UnknownCodeLimiter {
  private readonly logger = new Logger(UnknownCodeLimiter.name);
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  private key(address: string): string {
    // Environments (and test workers) sharing one Redis count apart, like the rate limits.
    return `${this.config.NATS_NAMESPACE}:items:unknown-codes:${address}`;
  }

  /** Milliseconds the address stays refused, or 0. */
  blockedFor(address: string, now = Date.now()): number {
    const until = this.blockedUntil.get(address);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.blockedUntil.delete(address);
    return 0;
  }

  /** Counts one miss (the first of a window starts it); at the limit the address is refused until the window ends. */
  async recordMiss(address: string): Promise<void> {
    try {
      const [{ count: misses, remainingMs }] = await countInWindow(this.redis.redis, [this.key(address)], UNKNOWN_CODE_LIMIT.windowMs);
      if (misses >= UNKNOWN_CODE_LIMIT.misses && remainingMs > 0) this.block(address, Date.now() + remainingMs);
    } catch (error) {
      // A finder is never refused because Redis is away: the limit is a defence in depth, not the lock.
      this.logger.warn(`unknown-code limit unavailable: ${(error as Error).message}`);
    }
  }

  private block(address: string, until: number): void {
    this.blockedUntil.delete(address);
    this.blockedUntil.set(address, until);
    if (this.blockedUntil.size > MAX_BLOCKED_REMEMBERED) this.blockedUntil.delete(this.blockedUntil.keys().next().value as string);
  }
}

function isNotFound(error: unknown): boolean {
  return (error instanceof RpcError && error.body.status === 404) || (error instanceof HttpException && error.getStatus() === 404);
}

/**
 * Runs one lookup of a tag code for a client address: refused with 429 and `Retry-After` while the address is past
 * the limit, whatever the code (answering known codes would leave a scanner its oracle: 200 against 429); below it,
 * a 404 counts as a miss. A plain call in the route rather than a Nest interceptor: an interceptor costs an
 * AsyncResource and an Observable per request, about a tenth of the gateway's CPU on the scan (docs/benchmarks.md).
 */
export async function limitUnknownCodeLookups<T>(limiter: UnknownCodeLimiter, address: string, reply: Pick<FastifyReply, 'header'>, lookUp: () => Promise<T>): Promise<T> {
  const blockedMs = limiter.blockedFor(address);
  if (blockedMs > 0) {
    void reply.header('retry-after', String(retryAfterSeconds(blockedMs)));
    throw new ApiError(429, ResponseCode.RATE_LIMITED, 'Too many lookups of unknown codes. Try again later.');
  }
  try {
    return await lookUp();
  } catch (error) {
    if (isNotFound(error)) await limiter.recordMiss(address);
    throw error;
  }
}
