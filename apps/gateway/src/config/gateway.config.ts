import { z } from 'zod';
import { baseEnvSchema, envSchemas, loadConfig } from '@homing/platform';

const gatewayEnvSchema = baseEnvSchema.extend({
  PORT: envSchemas.port.default(8080),
  PUBLIC_URL: envSchemas.urlWithProtocol(['http:', 'https:']).default('http://localhost:8080'),
  /** The built web app (dist/apps/web); when set, the gateway serves it with an SPA fallback. */
  WEB_DIST: z.string().min(1).optional(),
});

export type GatewayConfig = z.infer<typeof gatewayEnvSchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayEnvSchema, env);
}
