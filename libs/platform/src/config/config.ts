import { z } from 'zod';

/** Thrown when the environment does not describe a runnable service; lists every bad variable at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment with a zod schema into a frozen, typed config. Unknown variables are ignored. */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): Readonly<z.infer<S>> {
  // Empty strings count as unset, so `FOO=` in a .env file falls back to the default instead of failing oddly.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(present);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`));
  }
  return Object.freeze(result.data);
}

const urlWithProtocol = (protocols: string[]) =>
  z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be a URL starting with ${protocols.map((protocol) => `${protocol}//`).join(' or ')}`);

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

const port = z.coerce.number().int().min(1).max(65535);

/** Settings every service shares (ARCHITECTURE §10). */
export const baseEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_PRETTY: booleanFlag.default(false),
  NATS_URL: urlWithProtocol(['nats:', 'tls:']).default('nats://127.0.0.1:4222'),
  /** Prefixes every subject and stream, so several environments (or test workers) can share one NATS. */
  NATS_NAMESPACE: z.string().regex(/^[a-z0-9_]*$/, 'lowercase letters, digits and _ only').max(32).default(''),
  OTEL_EXPORTER_OTLP_ENDPOINT: urlWithProtocol(['http:', 'https:']).optional(),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  /** RPC handlers a service runs at once; beyond it, requests are answered 503 SERVICE_BUSY at once (load shedding). */
  RPC_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).default(256),
  /** JetStream stream replicas: 1 on one server, 3 in a production cluster. */
  JETSTREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** How long the events stream keeps events, in hours (7 days). Consumers' ledgers are kept longer. */
  JETSTREAM_EVENTS_MAX_AGE_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(7 * 24),
  /** JetStream de-duplication window by message id, in seconds: absorbs a relay's republish after a crash. */
  JETSTREAM_DUPLICATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(24 * 60 * 60).default(600),
});

export const databaseEnvSchema = z.object({
  DATABASE_URL: urlWithProtocol(['postgres:', 'postgresql:']).default('postgres://postgres@127.0.0.1:5432/homing'),
  /** The schema this service owns; tests give each worker its own. */
  DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'lowercase letters, digits and _ only').max(48).optional(),
});

export const redisEnvSchema = z.object({
  REDIS_URL: urlWithProtocol(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
});

/**
 * The e-mail relay's domain (`tag-{code}@…`, `c-{token}@…`): a host name, letters compared without case. The relay
 * receives its mail (MX); notifications writes reply addresses with it; the gateway shows a tag's address.
 */
const relayDomain = z
  .string()
  .max(253)
  .regex(/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, 'a domain name, e.g. relay.example.org')
  .transform((domain) => domain.toLowerCase());

export const envSchemas = { port, booleanFlag, urlWithProtocol, relayDomain };

export type BaseConfig = z.infer<typeof baseEnvSchema>;
export type DatabaseConfig = z.infer<typeof databaseEnvSchema>;
export type RedisConfig = z.infer<typeof redisEnvSchema>;
