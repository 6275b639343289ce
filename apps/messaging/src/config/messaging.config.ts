import { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, envSchemas, erasureEnvSchema, loadConfig, retentionEnvSchema } from '@homing/platform';

const messagingEnvSchema = baseEnvSchema.extend(databaseEnvSchema.shape).extend(retentionEnvSchema.shape).extend(erasureEnvSchema.shape).extend({
  PORT: envSchemas.port.default(3003),
  /** A conversation with no message (nor beginning) for this many days is erased whole: messages, finder's address, tokens. */
  CONVERSATION_RETENTION_DAYS: z.coerce.number().min(1).max(10 * 365).default(365),
  /** A conversation closed by a hand-over is erased whole this many days after (docs/privacy.md). */
  FINDER_DATA_RETENTION_DAYS: z.coerce.number().min(1).max(365).default(30),
});

export type MessagingConfig = z.infer<typeof messagingEnvSchema>;

export function loadMessagingConfig(env: NodeJS.ProcessEnv = process.env): MessagingConfig {
  return loadConfig(messagingEnvSchema, env);
}
