import { z } from 'zod';
import { baseEnvSchema, envSchemas, loadConfig, redisEnvSchema } from '@homing/platform';

const mailRelayEnvSchema = baseEnvSchema
  .extend(redisEnvSchema.shape)
  .extend({
    /** Health and metrics only; mail arrives on RELAY_SMTP_PORT. */
    PORT: envSchemas.port.default(3005),
    /** The domain whose mail this relay receives (its MX): `tag-{code}@…` and the reply addresses `c-{token}@…`. */
    RELAY_DOMAIN: envSchemas.relayDomain.default('relay.localhost'),
    /** The SMTP port (25 behind a load balancer in production; 2526 here, which needs no privileges). */
    RELAY_SMTP_PORT: envSchemas.port.default(2526),
    RELAY_SMTP_HOST: z.string().min(1).default('0.0.0.0'),
    /**
     * PEM files of a certificate and its key: with both, the relay offers STARTTLS (senders that can will encrypt).
     * Without, it takes mail in the clear, as most MX hosts still must accept.
     */
    RELAY_TLS_CERT_FILE: z.string().min(1).optional(),
    RELAY_TLS_KEY_FILE: z.string().min(1).optional(),
  })
  .refine((config) => (config.RELAY_TLS_CERT_FILE === undefined) === (config.RELAY_TLS_KEY_FILE === undefined), {
    message: 'RELAY_TLS_CERT_FILE and RELAY_TLS_KEY_FILE go together',
    path: ['RELAY_TLS_KEY_FILE'],
  });

export type MailRelayConfig = z.infer<typeof mailRelayEnvSchema>;

export function loadMailRelayConfig(env: NodeJS.ProcessEnv = process.env): MailRelayConfig {
  return loadConfig(mailRelayEnvSchema, env);
}
