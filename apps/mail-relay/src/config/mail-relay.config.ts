import { isIP } from 'node:net';
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
    /**
     * `required`: a mail to a tag's address is taken only when its From domain is authenticated (SPF or DKIM aligned
     * with it, DMARC), since the From becomes the finder's address the owner's replies go to. `off` takes any From
     * (local stacks and tests whose made-up sender domains have no DNS).
     */
    RELAY_SENDER_AUTHENTICATION: z.enum(['required', 'off']).default('required'),
    /**
     * The DNS servers the sender check asks (SPF, DKIM keys, DMARC), comma-separated `address` or `address:port`
     * (`[v6 address]:port`); unset, the system's resolver.
     */
    RELAY_DNS_SERVERS: z
      .string()
      .optional()
      .transform((value, context) => {
        const servers = (value ?? '').split(',').map((server) => server.trim()).filter(Boolean);
        const invalid = servers.find((server) => !isDnsServer(server));
        if (invalid !== undefined) {
          context.addIssue({ code: 'custom', message: `not an IP address, with or without a port: ${invalid}` });
          return z.NEVER;
        }
        return servers.length > 0 ? servers : undefined;
      }),
  })
  .refine((config) => (config.RELAY_TLS_CERT_FILE === undefined) === (config.RELAY_TLS_KEY_FILE === undefined), {
    message: 'RELAY_TLS_CERT_FILE and RELAY_TLS_KEY_FILE go together',
    path: ['RELAY_TLS_KEY_FILE'],
  })
  .refine((config) => config.RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT <= config.RELAY_SMTP_MAX_CLIENTS, {
    message: 'RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT cannot be over RELAY_SMTP_MAX_CLIENTS',
    path: ['RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT'],
  });

/** An IP address, optionally with a port (`192.0.2.1:53`, `[2001:db8::1]:53`), as dns.Resolver#setServers takes it. */
function isDnsServer(server: string): boolean {
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(server) ?? /^([^:]+):(\d+)$/.exec(server);
  if (!match) return isIP(server) !== 0;
  const port = Number(match[2]);
  return isIP(match[1]) !== 0 && port >= 1 && port <= 65_535;
}

export type MailRelayConfig = z.infer<typeof mailRelayEnvSchema>;

export function loadMailRelayConfig(env: NodeJS.ProcessEnv = process.env): MailRelayConfig {
  return loadConfig(mailRelayEnvSchema, env);
}
