import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ResponseCode } from '@homing/contracts';
import { InjectConfig, RedisClient } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import { retryAfterSeconds } from '@homing/platform';

/** The e-mails anyone may ask for on an address's behalf, each with its own budget. */
export type MailBudgetKind = 'login-code' | 'password-reset';

/**
 * ARCHITECTURE §6: per address and per kind, at most 1 a minute, 5 an hour and 10 a day. A login code does not use up
 * the reset link's budget, or the other way round.
 */
export const MAIL_BUDGETS: ReadonlyArray<{ windowMs: number; max: number }> = [
  { windowMs: 60_000, max: 1 },
  { windowMs: 60 * 60_000, max: 5 },
  { windowMs: 24 * 60 * 60_000, max: 10 },
];

// Checks every window first and counts the request in all of them only if none is full, so a refused request
// spends nothing. A window starts with its first request (the key expires with it). Answers 0, or the milliseconds
// until the fullest window ends.
const TAKE_SCRIPT = `
local wait = 0
for i, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0')
  if count >= tonumber(ARGV[i * 2]) then
    local left = redis.call('PTTL', key)
    if left > wait then wait = left end
  end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, 0, 'PX', ARGV[i * 2 - 1], 'NX')
  redis.call('INCR', key)
end
return 0`;

/**
 * Budgets of e-mails sent on request to one address (login codes, reset links), counted in Redis by every gateway
 * replica together, for any address, known or not: an unknown address is counted and refused exactly like a known
 * one, so the answer tells nothing about accounts. Keys hold a SHA-256 digest of the address, never the address.
 */
@Injectable()
export class MailBudgets {
  private readonly logger = new Logger(MailBudgets.name);

  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /** Takes one e-mail of the kind from the address's budget; past it, 429 with `Retry-After` (seconds). */
  async take(kind: MailBudgetKind, email: string, reply: Pick<FastifyReply, 'header'>): Promise<void> {
    const keys = this.keysOf(kind, email);
    let waitMs: number;
    try {
      waitMs = Number(await this.redis.redis.eval(TAKE_SCRIPT, keys.length, ...keys, ...MAIL_BUDGETS.flatMap(({ windowMs, max }) => [windowMs, max])));
    } catch (error) {
      // Identity keeps the same budgets per account in PostgreSQL (dropping silently past them): with Redis away the
      // request goes on, and an address still gets no more mail than its budget.
      this.logger.warn(`mail budgets unavailable: ${(error as Error).message}`);
      return;
    }
    if (waitMs > 0) {
      void reply.header('retry-after', String(retryAfterSeconds(waitMs)));
      throw new ApiError(429, ResponseCode.RATE_LIMITED, 'Too many e-mails asked for this address. Try again later.');
    }
  }

  /**
   * Forgets the address's counters (its account is erased). Best effort: they hold a digest, not the address, and
   * expire within a day on their own.
   */
  async forget(email: string): Promise<void> {
    const kinds: MailBudgetKind[] = ['login-code', 'password-reset'];
    await this.redis.redis.del(...kinds.flatMap((kind) => this.keysOf(kind, email))).catch((error: Error) => this.logger.warn(`mail budgets not forgotten: ${error.message}`));
  }

  private keysOf(kind: MailBudgetKind, email: string): string[] {
    const digest = createHash('sha256').update(email).digest('hex');
    return MAIL_BUDGETS.map(({ windowMs }) => `${this.config.NATS_NAMESPACE}:mail-budget:${kind}:${windowMs}:${digest}`);
  }
}
