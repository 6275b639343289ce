import { type DynamicModule, type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ResponseCode } from '@homing/contracts';
import { clientNetworkOf, countInWindow, RedisClient, refundInWindow, retryAfterSeconds, type WindowCount } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError } from './http-error';

/**
 * Per client address, in Redis so every gateway replica counts together. The default covers ordinary use of the
 * API (a page polls every 3 s); routes that cost a password hash or send an e-mail set tighter limits with
 * `@ApiRoute({ rateLimit: … })`. A route that counts other limits in Redis anyway (a message's) counts the default
 * with them, in the same round trip (`rateLimit: 'by-route'`, `routeLimitKey`, `countWithRouteLimit`).
 */
export const RATE_LIMITS = {
  default: { limit: 300, ttl: 60_000 },
  /** Password logins and token redemptions: argon2 work, and guessing. */
  login: { limit: 20, ttl: 60_000 },
  /** Requests that send an e-mail: per address limits are identity's; this stops one client spraying addresses. */
  email: { limit: 10, ttl: 60 * 60_000 },
} as const;

// Health checks and metrics are scraped, not used: never limited.
const UNLIMITED = /^\/(health\/|metrics)/;

/**
 * Keys counters on the client address as Fastify resolved it (X-Forwarded-For only from trusted proxies), an IPv6 one
 * by its /64 (`clientNetworkOf`): one host has a whole /64 to move through.
 */
@Injectable()
export class ClientAddressThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    return clientNetworkOf((request as unknown as FastifyRequest).ip);
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return UNLIMITED.test(context.switchToHttp().getRequest<FastifyRequest>().url);
  }
}

/**
 * The key of a route's default limit for a client, for a route that counts it itself (`rateLimit: 'by-route'`) in a
 * window of `RATE_LIMITS.default.ttl` with `countInWindow`. `client`: the client's network (`clientNetworkOf`), or a
 * keyed digest of it where the route keeps no address (a scan's).
 */
export function routeLimitKey(namespace: string, route: string, client: string): string {
  return `${namespace}:rate:default:${route}:${client}`;
}

/** A limit a `by-route` route counts besides its default one: a key and its window. */
export interface RouteOwnLimit {
  key: string;
  windowMs: number;
}

const logger = new Logger('RouteLimits');

/**
 * Counts one request of a `by-route` route against its default limit (`routeKey`) and its own limits in one Redis
 * call, and answers the default limit as the throttler guard does: past it 429 with `Retry-After` until the window
 * ends, else its `X-RateLimit-*` headers (limit, remaining, seconds to the reset). A request past it is given back to
 * the route's own limits, since the guard refused it before anything counted: else a client past it could still use
 * up a tag's hour, one refused request at a time. Resolves with the own limits' counts, in their order. As with the
 * guard, a count Redis cannot answer fails the request (503 when Redis is away).
 */
export async function countWithRouteLimit(redis: RedisClient, routeKey: string, own: readonly RouteOwnLimit[], reply: Pick<FastifyReply, 'header'>): Promise<WindowCount[]> {
  const { limit, ttl } = RATE_LIMITS.default;
  const [routeCount, ...counts] = await countInWindow(redis.redis, [routeKey, ...own.map(({ key }) => key)], [ttl, ...own.map(({ windowMs }) => windowMs)]);
  if (routeCount.count > limit) {
    if (own.length > 0) await refundInWindow(redis.redis, own.map(({ key }) => key)).catch((error: Error) => logger.warn(`a refused request's counts were not given back: ${error.message}`));
    void reply.header('retry-after', String(retryAfterSeconds(routeCount.remainingMs)));
    throw new ApiError(429, ResponseCode.RATE_LIMITED);
  }
  void reply.header('x-ratelimit-limit', String(limit));
  void reply.header('x-ratelimit-remaining', String(limit - routeCount.count));
  void reply.header('x-ratelimit-reset', String(Math.ceil(routeCount.remainingMs / 1000)));
  return counts;
}

/** The rate limiter's storage and settings; its guard is registered (first) by the app module. */
export function rateLimitsModule(config: GatewayConfig): DynamicModule {
  return ThrottlerModule.forRootAsync({
    inject: [RedisClient],
    useFactory: (redis: RedisClient): ThrottlerModuleOptions => ({
      throttlers: [{ name: 'default', ...RATE_LIMITS.default }],
      storage: new ThrottlerStorageRedisService(redis.redis),
      // Environments (and test workers) sharing one Redis count apart.
      generateKey: (context, tracker, name) => `${config.NATS_NAMESPACE}:rate:${name}:${context.getClass().name}.${context.getHandler().name}:${tracker}`,
    }),
  });
}
