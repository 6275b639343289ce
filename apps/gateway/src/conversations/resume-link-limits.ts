import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectConfig, RedisClient } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { countInWindow } from '@homing/platform';

/**
 * How many resume links one address may be sent an hour, whatever asks (the per client address limit is the route's
 * `email` rate limit). A finder needs one; a few allow for a lost mail.
 */
export const RESUME_LINK_LIMITS = { perEmail: 3, windowMs: 60 * 60_000 } as const;

/** Counts resume-link requests per e-mail address in Redis (every replica together), keyed by the address's digest. */
@Injectable()
export class ResumeLinkLimits {
  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /**
   * Whether one more link may go to this address this hour. A refusal is silent (the route answers 202 either way),
   * so the limit tells nobody whether the address ever wrote. Throws if Redis cannot answer (503: nothing is sent).
   */
  async admit(email: string): Promise<boolean> {
    const [perEmail] = await countInWindow(this.redis.redis, [resumeLinkKey(this.config.NATS_NAMESPACE, email)], RESUME_LINK_LIMITS.windowMs);
    return perEmail.count <= RESUME_LINK_LIMITS.perEmail;
  }
}

/** The counter's key: a digest of the address as typed in any case, never the address itself. */
export function resumeLinkKey(namespace: string, email: string): string {
  return `${namespace}:resume-links:${createHash('sha256').update(email.trim().toLowerCase()).digest('base64url')}`;
}
