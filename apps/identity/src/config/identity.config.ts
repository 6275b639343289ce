import { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, envSchemas, loadConfig } from '@homing/platform';

const identityEnvSchema = baseEnvSchema.extend(databaseEnvSchema.shape).extend({
  PORT: envSchemas.port.default(3001),
});

export type IdentityConfig = z.infer<typeof identityEnvSchema>;

export function loadIdentityConfig(env: NodeJS.ProcessEnv = process.env): IdentityConfig {
  return loadConfig(identityEnvSchema, env);
}
