import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectConfig, RedisClient, type ReadinessCheck } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import { durabilityProblems, readRedisDurability } from './redis-durability';

/**
 * BullMQ keeps queued notifications only in Redis: without AOF a Redis restart loses them, and an evicting
 * memory policy drops them silently (ARCHITECTURE §9). In production such a Redis keeps the service not ready
 * (/health/ready names the setting) and start-up logs an error; in development start-up warns once.
 * Never blocks start-up: Redis may be down then, and /health/live must answer regardless.
 */
@Injectable()
export class RedisDurabilityCheck implements OnApplicationBootstrap, ReadinessCheck {
  readonly name = 'redis_durability';
  private readonly logger = new Logger(RedisDurabilityCheck.name);
  private reportScheduled = false;

  constructor(
    private readonly redis: RedisClient,
    @InjectConfig() private readonly config: NotificationsConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.reportScheduled) return;
    this.reportScheduled = true;
    // Reported once Redis answers, without holding up start-up.
    const redis = this.redis.redis;
    if (redis.status === 'ready') void this.report();
    else redis.once('ready', () => void this.report());
  }

  async check(): Promise<void> {
    if (this.config.NODE_ENV !== 'production') return;
    const problems = await this.problems();
    if (problems.length > 0) throw new Error(this.describe(problems));
  }

  private async report(): Promise<void> {
    let problems: string[];
    try {
      problems = await this.problems();
    } catch (error) {
      this.logger.warn(`could not read the Redis configuration: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (problems.length === 0) return;
    if (this.config.NODE_ENV === 'production') this.logger.error(`${this.describe(problems)}; not ready until it is fixed`);
    else this.logger.warn(this.describe(problems));
  }

  private async problems(): Promise<string[]> {
    return durabilityProblems(await readRedisDurability(this.redis.redis));
  }

  private describe(problems: string[]): string {
    return `Redis at ${this.config.REDIS_URL.replace(/\/\/[^@]*@/, '//***@')} can lose queued notifications: ${problems.join('; ')}`;
  }
}
