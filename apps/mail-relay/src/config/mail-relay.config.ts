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
    /** Connections open at once, from everyone: past it, a new one is answered 421 (the sender retries). */
    RELAY_SMTP_MAX_CLIENTS: z.coerce.number().int().min(1).max(10_000).default(200),
    /**
     * Connections open at once from one client (an IPv4 address, an IPv6 /64): past it, a new one is answered 421 at
     * connect. A sending server opens a few in parallel; one client holding them all would shut every other out.
     */
    RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT: z.coerce.number().int().min(1).max(1000).default(10),
    /** Mails (MAIL FROM) over one connection: the next is answered 421 and the connection closed; senders reconnect. */
    RELAY_SMTP_MAX_MAILS_PER_CONNECTION: z.coerce.number().int().min(1).max(10_000).default(100),
    /** A connection silent this long while it is the client's turn is answered 421 and closed. */
    RELAY_SMTP_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
    /**
     * How long a connection may stay open at all, however busy: a client trickling a byte at a time is never idle.
     * Then 421 and closed, once a mail being decided has its answer.
     */
    RELAY_SMTP_MAX_CONNECTION_SECONDS: z.coerce.number().int().min(1).max(24 * 60 * 60).default(600),
  })
  .refine((config) => (config.RELAY_TLS_CERT_FILE === undefined) === (config.RELAY_TLS_KEY_FILE === undefined), {
    message: 'RELAY_TLS_CERT_FILE and RELAY_TLS_KEY_FILE go together',
    path: ['RELAY_TLS_KEY_FILE'],
  })
  .refine((config) => config.RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT <= config.RELAY_SMTP_MAX_CLIENTS, {
    message: 'RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT cannot be over RELAY_SMTP_MAX_CLIENTS',
    path: ['RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT'],
  });

export type MailRelayConfig = z.infer<typeof mailRelayEnvSchema>;

export function loadMailRelayConfig(env: NodeJS.ProcessEnv = process.env): MailRelayConfig {
  return loadConfig(mailRelayEnvSchema, env);
}
