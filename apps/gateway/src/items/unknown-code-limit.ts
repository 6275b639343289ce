import { HttpException, Injectable, Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedRequest } from '../auth/authenticated-user';
import { ResponseCode } from '@homing/contracts';
import { clientNetworkOf, InjectConfig, RedisClient, RpcError, UNKNOWN_CODE_LIMIT, unknownCodeMissesKey } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { OldestFirst } from '../caching/oldest-first';
import { ApiError, sendHttpError, type HttpErrorAnswer } from '../http/http-error';
import { countInWindow, retryAfterSeconds } from '@homing/platform';

// Lookups of codes that do not exist, per client (ARCHITECTURE §7; UNKNOWN_CODE_LIMIT in libs/platform): an address,
// an IPv6 one by its /64 (`clientNetworkOf`), since a host moving through its own block must meet the limit too. A
// finder scans a real tag, or types one and mistypes it a few times; only someone guessing codes misses this often.
// Codes are 80 random bits, so this is defence in depth: it turns a scanner's free oracle into 30 guesses an hour. The
// mail relay counts its unknown tag addresses under the same key.

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
  private readonly oldestBlocked = new OldestFirst(this.blockedUntil);

  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  private key(address: string): string {
    return unknownCodeMissesKey(this.config.NATS_NAMESPACE, address);
  }

  /** Whether any address is refused now: while none is, a request's address need not even be worked out. */
  get blocksAny(): boolean {
    return this.blockedUntil.size > 0;
  }

  /** Milliseconds the address's client stays refused, or 0. */
  blockedFor(address: string, now = Date.now()): number {
    const client = clientNetworkOf(address);
    const until = this.blockedUntil.get(client);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.blockedUntil.delete(client);
    return 0;
  }

  /** Counts one miss (the first of a window starts it); at the limit the client is refused until the window ends. */
  async recordMiss(address: string): Promise<void> {
    const client = clientNetworkOf(address);
    try {
      const [{ count: misses, remainingMs }] = await countInWindow(this.redis.redis, [this.key(client)], UNKNOWN_CODE_LIMIT.windowMs);
      if (misses >= UNKNOWN_CODE_LIMIT.misses && remainingMs > 0) this.block(client, Date.now() + remainingMs);
    } catch (error) {
      // A finder is never refused because Redis is away: the limit is a defence in depth, not the lock.
      this.logger.warn(`unknown-code limit unavailable: ${(error as Error).message}`);
    }
  }

  private block(client: string, until: number): void {
    this.blockedUntil.delete(client);
    this.blockedUntil.set(client, until);
    if (this.blockedUntil.size > MAX_BLOCKED_REMEMBERED) this.oldestBlocked.drop();
  }
}

function isNotFound(error: unknown): boolean {
  return (error instanceof RpcError && error.body.status === 404) || (error instanceof HttpException && error.getStatus() === 404);
}

const TOO_MANY_UNKNOWN_CODES = 'Too many lookups of unknown codes. Try again later.';

/**
 * Whether a route takes a tag code in its path (`:code`): the scan, the QR images, a finder's messages and streams,
 * the owner's item routes, and every route added later with a code. Each one tells a guesser whether a code exists.
 */
export function takesTagCode(request: FastifyRequest): boolean {
  return request.routeOptions.url?.includes(':code') ?? false;
}

/**
 * A miss: the one answer of a code that does not exist, on a route a stranger may call (`@Public()`: the scan, QR
 * images, photos, a finder's messages, streams and push). There it tells whether a code exists. An owner's route
 * answers another person's item with the same 404 as a missing one, so it tells nothing; counting it would only lock
 * out an owner who asks about a new item before messaging has heard of it.
 */
export function isMiss(request: AuthenticatedRequest, answer: HttpErrorAnswer): boolean {
  return request.publicRoute === true && answer.status === 404 && answer.body.response_code === ResponseCode.ITEM_NOT_FOUND && takesTagCode(request);
}

/**
 * Puts every route with a tag code in its path behind the limit: past it, the address gets 429 with `Retry-After`
 * on all of them, whatever the code, before the route runs (answering known codes would leave a scanner its oracle:
 * 200 against 429). The error filter counts each public route's unknown-code 404 as a miss (`isMiss`). A
 * Fastify hook rather than a Nest interceptor: an interceptor costs an AsyncResource and an Observable per request,
 * about a tenth of the gateway's CPU on the scan (docs/benchmarks.md); this is one map lookup.
 */
export function limitCodeRoutes(fastify: FastifyInstance, limiter: UnknownCodeLimiter): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    // `request.ip` parses X-Forwarded-For against the trusted proxies on every read: only when someone is refused.
    const blockedMs = limiter.blocksAny && takesTagCode(request) && !limitsUnknownCodesItself(request) ? limiter.blockedFor(request.ip) : 0;
    if (blockedMs === 0) return done();
    sendHttpError(reply.header('retry-after', String(retryAfterSeconds(blockedMs))), {
      status: 429,
      body: { response_code: ResponseCode.RATE_LIMITED, message: TOO_MANY_UNKNOWN_CODES },
    });
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route applies the unknown-code limit itself, first thing (`limitUnknownCodeLookups`), so that it answers a
     * blocked address in its own form (the finder page: a page, not the API's JSON).
     */
    limitsUnknownCodesItself?: boolean;
  }
}

function limitsUnknownCodesItself(request: FastifyRequest): boolean {
  return request.routeOptions.config?.limitsUnknownCodesItself === true;
}

/**
 * The same limit for a code that comes in a body (activation's `POST /claim`): refused while the address is past
 * it, and a 404 counts as a miss.
 */
export async function limitUnknownCodeLookups<T>(limiter: UnknownCodeLimiter, address: string, reply: Pick<FastifyReply, 'header'>, lookUp: () => Promise<T>): Promise<T> {
  const blockedMs = limiter.blockedFor(address);
  if (blockedMs > 0) {
    void reply.header('retry-after', String(retryAfterSeconds(blockedMs)));
    throw new ApiError(429, ResponseCode.RATE_LIMITED, TOO_MANY_UNKNOWN_CODES);
  }
  try {
    return await lookUp();
  } catch (error) {
    if (isNotFound(error)) await limiter.recordMiss(address);
    throw error;
  }
}
