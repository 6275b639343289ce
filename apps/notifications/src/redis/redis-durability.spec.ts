import type { RedisClient } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import { RedisDurabilityCheck } from './redis-durability.check';
import { durabilityProblems, readRedisDurability, type RedisSettingsReader } from './redis-durability';

const INFO_PERSISTENCE = (aof: 0 | 1) => `# Persistence\r\nloading:0\r\naof_enabled:${aof}\r\naof_rewrite_in_progress:0\r\n`;
const INFO_MEMORY = (policy: string) => `# Memory\r\nused_memory:1024\r\nmaxmemory_policy:${policy}\r\n`;

/** A Redis answering CONFIG GET from `settings`, or refusing CONFIG like a managed Redis when `settings` is null. */
function fakeRedis(settings: Record<string, string> | null, info = { aof: 1 as 0 | 1, policy: 'noeviction' }): RedisSettingsReader & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async config(_subcommand, parameter) {
      calls.push(`CONFIG GET ${parameter}`);
      if (!settings) throw new Error("ERR unknown command 'CONFIG', with args beginning with: 'GET' 'appendonly'");
      return parameter in settings ? [parameter, settings[parameter]] : [];
    },
    async info(section) {
      calls.push(`INFO ${section}`);
      return section === 'persistence' ? INFO_PERSISTENCE(info.aof) : INFO_MEMORY(info.policy);
    },
  };
}

describe('readRedisDurability', () => {
  it('reads the settings with CONFIG GET where Redis allows it', async () => {
    const redis = fakeRedis({ appendonly: 'yes', 'maxmemory-policy': 'allkeys-lru' });
    expect(await readRedisDurability(redis)).toEqual({ appendonly: true, maxmemoryPolicy: 'allkeys-lru' });
    expect(redis.calls).not.toContain('INFO persistence');
  });

  it('falls back to INFO where CONFIG is refused, as on managed Redis', async () => {
    const redis = fakeRedis(null, { aof: 1, policy: 'noeviction' });
    expect(await readRedisDurability(redis)).toEqual({ appendonly: true, maxmemoryPolicy: 'noeviction' });
    expect(await readRedisDurability(fakeRedis(null, { aof: 0, policy: 'volatile-lru' }))).toEqual({ appendonly: false, maxmemoryPolicy: 'volatile-lru' });
  });

  it('falls back to INFO where CONFIG GET answers nothing', async () => {
    expect(await readRedisDurability(fakeRedis({}, { aof: 0, policy: 'noeviction' }))).toEqual({ appendonly: false, maxmemoryPolicy: 'noeviction' });
  });

  it('fails with the reason when INFO fails too', async () => {
    const redis: RedisSettingsReader = {
      config: () => Promise.reject(new Error("Stream isn't writeable")),
      info: () => Promise.reject(new Error("Stream isn't writeable")),
    };
    await expect(readRedisDurability(redis)).rejects.toThrow("Stream isn't writeable");
  });
});

describe('durabilityProblems', () => {
  it('finds none with AOF on and no eviction', () => {
    expect(durabilityProblems({ appendonly: true, maxmemoryPolicy: 'noeviction' })).toEqual([]);
  });

  it('names each setting that loses queued notifications, with its fix', () => {
    expect(durabilityProblems({ appendonly: false, maxmemoryPolicy: 'allkeys-lru' })).toEqual([
      'appendonly is off (set appendonly yes)',
      'maxmemory-policy is allkeys-lru (set noeviction)',
    ]);
  });
});

describe('RedisDurabilityCheck (readiness)', () => {
  const checkWith = (redis: RedisSettingsReader, NODE_ENV: NotificationsConfig['NODE_ENV']) =>
    new RedisDurabilityCheck({ redis } as unknown as RedisClient, { NODE_ENV, REDIS_URL: 'redis://user:secret@redis:6379' } as NotificationsConfig);

  it('keeps a production service not ready on a Redis without AOF, naming the setting and hiding the password', async () => {
    const failure = await checkWith(fakeRedis(null, { aof: 0, policy: 'noeviction' }), 'production').check().catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('appendonly is off');
    expect((failure as Error).message).toContain('redis://***@redis:6379');
    expect((failure as Error).message).not.toContain('secret');
  });

  it('is ready in production on a durable Redis', async () => {
    await expect(checkWith(fakeRedis({ appendonly: 'yes', 'maxmemory-policy': 'noeviction' }), 'production').check()).resolves.toBeUndefined();
  });

  it('does not hold readiness in development, where it only warns', async () => {
    const redis = fakeRedis({ appendonly: 'no', 'maxmemory-policy': 'noeviction' });
    await expect(checkWith(redis, 'development').check()).resolves.toBeUndefined();
    expect(redis.calls).toEqual([]);
  });
});
