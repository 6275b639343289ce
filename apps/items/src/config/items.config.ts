import { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, envSchemas, erasureEnvSchema, loadConfig, retentionEnvSchema } from '@homing/platform';

const itemsEnvSchema = baseEnvSchema.extend(databaseEnvSchema.shape).extend(retentionEnvSchema.shape).extend(erasureEnvSchema.shape).extend({
  PORT: envSchemas.port.default(3002),
  /** ARCHITECTURE §7: rewards are hidden everywhere unless enabled. */
  REWARDS_ENABLED: envSchemas.booleanFlag.default(false),
  /** The web app's address: printed tag sheets encode `PUBLIC_URL/found/{code}`. */
  PUBLIC_URL: envSchemas.urlWithProtocol(['http:', 'https:']).default('http://localhost:8080'),
  /** The e-mail relay's domain: printed tag sheets show each tag's address there (`tag-{code}@…`). */
  RELAY_DOMAIN: envSchemas.relayDomain.default('relay.localhost'),
});

export type ItemsConfig = z.infer<typeof itemsEnvSchema>;

export function loadItemsConfig(env: NodeJS.ProcessEnv = process.env): ItemsConfig {
  return loadConfig(itemsEnvSchema, env);
}
