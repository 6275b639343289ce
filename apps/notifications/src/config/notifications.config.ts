import { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, envSchemas, loadConfig, redisEnvSchema } from '@homing/platform';

const notificationsEnvSchema = baseEnvSchema
  .extend(databaseEnvSchema.shape)
  .extend(redisEnvSchema.shape)
  .extend({
    PORT: envSchemas.port.default(3004),
    /** One image, two roles (ARCHITECTURE §1): event consumers, queue workers, or both, so workers scale alone. */
    NOTIFICATIONS_ROLE: z.enum(['consumer', 'worker', 'all']).default('all'),
  });

export type NotificationsConfig = z.infer<typeof notificationsEnvSchema>;

export function loadNotificationsConfig(env: NodeJS.ProcessEnv = process.env): NotificationsConfig {
  return loadConfig(notificationsEnvSchema, env);
}

export const NOTIFICATIONS_CONFIG = Symbol('NOTIFICATIONS_CONFIG');
