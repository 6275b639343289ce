import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';

export const REDIS_OPTIONS = Symbol('REDIS_OPTIONS');

export interface RedisOptions {
  url: string;
  /** Shown in `CLIENT LIST`, e.g. `notifications`. */
  service: string;
}

/**
 * The process's Redis connection. It reconnects forever; while Redis is away commands fail at once
 * (no offline queue), so callers answer 503 instead of waiting.
 */
@Injectable()
export class RedisClient implements OnApplicationShutdown {
  private readonly logger = new Logger(RedisClient.name);
  readonly redis: Redis;

  constructor(@Inject(REDIS_OPTIONS) options: RedisOptions) {
    this.redis = new Redis(options.url, {
      connectionName: options.service,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 3000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    let warned = false;
    this.redis.on('error', (error) => {
      if (!warned) this.logger.warn(`Redis: ${error.message}`);
      warned = true;
    });
    this.redis.on('ready', () => {
      if (warned) this.logger.log('Redis reconnected');
      warned = false;
    });
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
