import IORedis from 'ioredis';
import { testInfra } from './infra';
import { isolatedName } from './isolation';

/** A connection to the tests' Redis for one test file, with a key namespace of its own. */
export interface IsolatedRedis {
  redis: IORedis;
  /** `isolatedName()`: the prefix of every key the file writes (`<namespace>:…`). */
  namespace: string;
  /** A key in the file's namespace. */
  key(name: string): string;
  /** Deletes the namespace's keys and closes the connection (the file's `afterAll`). */
  close(): Promise<void>;
}

/**
 * Tests running at the same time share one Redis: each file writes under a namespace of its own and deletes its keys
 * when it is done, so none sees or removes another's.
 */
export function isolatedRedis(redisUrl = testInfra().redisUrl): IsolatedRedis {
  const namespace = isolatedName();
  const redis = new IORedis(redisUrl, { lazyConnect: false });
  return {
    redis,
    namespace,
    key: (name) => `${namespace}:${name}`,
    close: async () => {
      const keys = await redis.keys(`${namespace}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  };
}
