import {
  type CallHandler,
  type ExecutionContext,
  HttpException,
  Inject,
  Injectable,
  Logger,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, defer, from, mergeMap, type Observable } from 'rxjs';
import { ResponseCode } from '@homing/contracts';
import { RedisClient, RpcError } from '@homing/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';

/**
 * Lookups of codes that do not exist, per client address (ARCHITECTURE §7). A finder scans a real tag, or types one
 * and mistypes it a few times; only someone guessing codes misses this often. Codes are 80 random bits, so this is
 * defence in depth: it turns a scanner's free oracle into 30 guesses an hour.
 */
export const UNKNOWN_CODE_LIMIT = { misses: 30, windowMs: 60 * 60_000 } as const;

/** A verdict on one client address: how many misses it has in the current window, and when that window ends. */
export interface MissCount {
  misses: number;
  /** Milliseconds until the window ends (and the count with it). */
  remainingMs: number;
}

/** Whole seconds to tell a refused client to wait (at least 1). */
export function retryAfterSeconds(remainingMs: number): number {
  return Math.max(1, Math.ceil(remainingMs / 1000));
}

export function isBlocked(count: MissCount | null): boolean {
  return count !== null && count.misses >= UNKNOWN_CODE_LIMIT.misses;
}

/** Counts misses in Redis, so every gateway replica counts together; the key expires with its window. */
@Injectable()
export class UnknownCodeLimiter {
  private readonly logger = new Logger(UnknownCodeLimiter.name);

  constructor(
    private readonly redis: RedisClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  private key(address: string): string {
    // Environments (and test workers) sharing one Redis count apart, like the rate limits.
    return `${this.config.NATS_NAMESPACE}:items:unknown-codes:${address}`;
  }

  /**
   * The address's misses in its current window (`remainingMs` exact only at the limit); null when it has none, or when
   * Redis cannot say.
   */
  async count(address: string): Promise<MissCount | null> {
    try {
      // One GET on the scan path; the window's end is only looked up for an address at the limit.
      const misses = Number(await this.redis.redis.get(this.key(address)));
      if (!(misses >= UNKNOWN_CODE_LIMIT.misses)) return misses > 0 ? { misses, remainingMs: UNKNOWN_CODE_LIMIT.windowMs } : null;
      const remainingMs = await this.redis.redis.pttl(this.key(address));
      return remainingMs > 0 ? { misses, remainingMs } : null;
    } catch (error) {
      // A finder is never refused because Redis is away: the limit is a defence in depth, not the lock.
      this.logger.warn(`unknown-code limit unavailable: ${(error as Error).message}`);
      return null;
    }
  }

  /** Counts one miss; the first miss of a window starts it. */
  async recordMiss(address: string): Promise<void> {
    try {
      await this.redis.redis.multi().set(this.key(address), 0, 'PX', UNKNOWN_CODE_LIMIT.windowMs, 'NX').incr(this.key(address)).exec();
    } catch (error) {
      this.logger.warn(`unknown-code limit unavailable: ${(error as Error).message}`);
    }
  }
}

function isNotFound(error: unknown): boolean {
  return (error instanceof RpcError && error.body.status === 404) || (error instanceof HttpException && error.getStatus() === 404);
}

/**
 * Refuses lookups from an address past the limit with 429 and `Retry-After`, whatever the code: answering known codes
 * would leave a scanner its oracle (200 against 429). Below it, every 404 the route answers counts as a miss.
 */
@Injectable()
export class UnknownCodeLimitInterceptor implements NestInterceptor {
  constructor(private readonly limiter: UnknownCodeLimiter) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const address = http.getRequest<FastifyRequest>().ip;
    return from(this.limiter.count(address)).pipe(
      mergeMap((count) => {
        if (count && isBlocked(count)) {
          void http.getResponse<FastifyReply>().header('retry-after', String(retryAfterSeconds(count.remainingMs)));
          throw new ApiError(429, ResponseCode.RATE_LIMITED, 'Too many lookups of unknown codes. Try again later.');
        }
        return next.handle();
      }),
      catchError((error: unknown) =>
        defer(async () => {
          if (isNotFound(error)) await this.limiter.recordMiss(address);
          throw error;
        }),
      ),
    );
  }
}

/** On a route that looks a tag code up: limits how many unknown codes one client address may try. */
export const LimitUnknownCodeLookups = () => UseInterceptors(UnknownCodeLimitInterceptor);
