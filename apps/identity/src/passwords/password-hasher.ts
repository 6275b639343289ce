import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';
import { ResponseCode } from '@homing/contracts';
import { requestContext, RpcError, InjectConfig } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';
import { BoundedPool, PoolFullError } from './bounded-pool';
import { isCommonPassword } from './common-passwords';

// argon2id m=19456 KiB, t=2, p=1: OWASP's minimum recommendation (ARCHITECTURE §6); 15–20 ms here.
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * Hashes and verifies passwords on a bounded pool: a few hashes at once and a short queue; beyond that a request
 * is refused at once with 429 RATE_LIMITED (the gateway adds Retry-After), so overload shows as refusals, not as
 * unbounded latency (RELIABILITY L3).
 */
@Injectable()
export class PasswordHasher {
  private readonly pool: BoundedPool;
  // Verified when the e-mail is unknown (or the user has no password), so such a login takes as long as a real one.
  private readonly dummyHash: Promise<string>;

  constructor(@InjectConfig() config: IdentityConfig) {
    this.pool = new BoundedPool(config.PASSWORD_HASH_CONCURRENCY, config.PASSWORD_HASH_QUEUE);
    this.dummyHash = argon2.hash(randomBytes(16).toString('hex'), ARGON2_OPTIONS);
  }

  /** Refuses a common password with 422 `{password: 'invalid'}`; the length rules are checked by the contract. */
  assertAcceptable(password: string): void {
    if (isCommonPassword(password)) throw RpcError.validation({ password: 'invalid' }, 'This password is too common. Choose another.');
  }

  hash(password: string): Promise<string> {
    return this.onPool(() => argon2.hash(password, ARGON2_OPTIONS));
  }

  /** True if the password matches the hash; with no hash, verifies a dummy one (same time) and answers false. */
  verify(hash: string | null, password: string): Promise<boolean> {
    return this.onPool(async () => {
      const matches = await argon2.verify(hash ?? (await this.dummyHash), password);
      return hash !== null && matches;
    });
  }

  private async onPool<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await this.pool.run(task, requestContext.deadline());
    } catch (error) {
      if (error instanceof PoolFullError) {
        throw new RpcError({ status: 429, response_code: ResponseCode.RATE_LIMITED, message: 'You are making too many requests.' });
      }
      throw error;
    }
  }
}
