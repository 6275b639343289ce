/** What decides whether Redis keeps queued notifications: an append-only file, and no eviction. */
export interface RedisDurability {
  appendonly: boolean;
  maxmemoryPolicy: string;
}

/** The two commands the settings can be read with; ioredis's client fits. */
export interface RedisSettingsReader {
  config(subcommand: 'GET', parameter: string): Promise<unknown>;
  info(section: string): Promise<string>;
}

/**
 * Reads the settings with `CONFIG GET`, or, where that is refused (managed Redis such as ElastiCache or
 * Memorystore renames or forbids CONFIG), from `INFO persistence` and `INFO memory`, which report the same.
 */
export async function readRedisDurability(redis: RedisSettingsReader): Promise<RedisDurability> {
  try {
    const [, appendonly] = (await redis.config('GET', 'appendonly')) as string[];
    const [, maxmemoryPolicy] = (await redis.config('GET', 'maxmemory-policy')) as string[];
    // Some managed services answer CONFIG GET with an empty list rather than an error.
    if (appendonly !== undefined && maxmemoryPolicy !== undefined) return { appendonly: appendonly === 'yes', maxmemoryPolicy };
  } catch {
    // Refused: INFO below. If Redis is unreachable, INFO fails too and says so.
  }
  const persistence = parseInfo(await redis.info('persistence'));
  const memory = parseInfo(await redis.info('memory'));
  return { appendonly: persistence.aof_enabled === '1', maxmemoryPolicy: memory.maxmemory_policy ?? 'unknown' };
}

/** What makes Redis lose queued notifications, with the fix; empty when it keeps them. */
export function durabilityProblems(durability: RedisDurability): string[] {
  const problems: string[] = [];
  if (!durability.appendonly) problems.push('appendonly is off (set appendonly yes)');
  if (durability.maxmemoryPolicy !== 'noeviction') problems.push(`maxmemory-policy is ${durability.maxmemoryPolicy} (set noeviction)`);
  return problems;
}

// `INFO` answers `# Section` headers and `key:value` lines.
function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const separator = line.indexOf(':');
    if (separator > 0 && !line.startsWith('#')) fields[line.slice(0, separator)] = line.slice(separator + 1).trim();
  }
  return fields;
}
