import { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, envSchemas, loadConfig } from '@homing/platform';

const messagingEnvSchema = baseEnvSchema.extend(databaseEnvSchema.shape).extend({
  PORT: envSchemas.port.default(3003),
});

export type MessagingConfig = z.infer<typeof messagingEnvSchema>;

export function loadMessagingConfig(env: NodeJS.ProcessEnv = process.env): MessagingConfig {
  return loadConfig(messagingEnvSchema, env);
}
