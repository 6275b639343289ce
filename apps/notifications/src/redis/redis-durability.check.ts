import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { RedisClient } from '@homing/platform';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../config/notifications.config';

/**
 * BullMQ keeps queued notifications only in Redis: without AOF a Redis restart loses them, and an evicting
 * memory policy drops them silently (ARCHITECTURE §9). Warn in development; refuse to start in production.
 */
@Injectable()
export class RedisDurabilityCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger(RedisDurabilityCheck.name);

  constructor(
    private readonly redis: RedisClient,
    @Inject(NOTIFICATIONS_CONFIG) private readonly config: NotificationsConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const problems = await this.problems().catch((error: Error) => [`could not read the Redis configuration: ${error.message}`]);
    if (problems.length === 0) return;
    const message = `Redis at ${this.config.REDIS_URL.replace(/\/\/[^@]*@/, '//***@')} can lose queued notifications: ${problems.join('; ')}`;
    if (this.config.NODE_ENV === 'production') throw new Error(message);
    this.logger.warn(message);
  }

  private async problems(): Promise<string[]> {
    const redis = this.redis.redis;
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    const [, appendonly] = (await redis.config('GET', 'appendonly')) as string[];
    const [, policy] = (await redis.config('GET', 'maxmemory-policy')) as string[];
    const problems: string[] = [];
    if (appendonly !== 'yes') problems.push('appendonly is off (set appendonly yes)');
    if (policy !== 'noeviction') problems.push(`maxmemory-policy is ${policy} (set noeviction)`);
    return problems;
  }
}
